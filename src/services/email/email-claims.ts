// Row claims on the `emails` outbox. Several mailer processes may run at once (on SQLite and on
// PostgreSQL), so every state change is a conditional update: a claim succeeds only while the row is
// still pending and unleased, and a result is written only while the writer still holds its lease.
import type { EmailsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

export interface EmailClaim {
  row: EmailsTable;
  /** The lease this claim wrote; finishing checks it, so a mailer whose lease ran out writes nothing. */
  lease: number;
}

export type EmailOutcome =
  | { status: 'sent' }
  | { status: 'skipped'; reason: string }
  | { status: 'retry'; error: string; nextAttemptAt: number }
  | { status: 'failed'; error: string };

const LAST_ERROR_MAX = 500;

/** Ids of rows due now, oldest first; claiming them is a separate step that may lose to another mailer. */
export async function findDueEmailIds(deps: Deps, limit: number): Promise<string[]> {
  const now = deps.now();
  const rows = await deps.db
    .selectFrom('emails')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .orderBy('next_attempt_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Takes one row for `leaseMs`. The WHERE repeats the due check, so of two mailers that both saw the row
 * only one update matches (PostgreSQL re-checks it after the row lock; SQLite serialises writers).
 * A mailer that dies mid-send leaves the lease to run out, and the row is sent again: at least once.
 */
export async function claimEmail(deps: Deps, id: string, leaseMs: number): Promise<EmailClaim | null> {
  const now = deps.now();
  const lease = now + leaseMs;
  const row = await deps.db
    .updateTable('emails')
    .set({ locked_until: lease })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .returningAll()
    .executeTakeFirst();
  return row ? { row, lease } : null;
}

/** Records the result of a claimed row; false when the lease was lost meanwhile (nothing written). */
export async function finishEmail(deps: Deps, claim: EmailClaim, outcome: EmailOutcome): Promise<boolean> {
  const now = deps.now();
  const base = deps.db
    .updateTable('emails')
    .where('id', '=', claim.row.id)
    .where('status', '=', 'pending')
    .where('locked_until', '=', claim.lease);
  let query: ReturnType<typeof base.set>;
  switch (outcome.status) {
    case 'sent':
      query = base.set((eb) => ({ status: 'sent', sent_at: now, attempts: eb('attempts', '+', 1), locked_until: null, last_error: null }));
      break;
    case 'skipped':
      // Skipping sends nothing, so it is not an attempt.
      query = base.set({ status: 'skipped', locked_until: null, last_error: outcome.reason });
      break;
    case 'retry':
      query = base.set((eb) => ({
        attempts: eb('attempts', '+', 1),
        next_attempt_at: outcome.nextAttemptAt,
        locked_until: null,
        last_error: outcome.error.slice(0, LAST_ERROR_MAX),
      }));
      break;
    case 'failed':
      query = base.set((eb) => ({ status: 'failed', attempts: eb('attempts', '+', 1), locked_until: null, last_error: outcome.error.slice(0, LAST_ERROR_MAX) }));
      break;
  }
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Without SMTP every due row is recorded as skipped in one statement: not an error, nothing to retry. */
export async function skipDueEmails(deps: Deps, reason: string): Promise<number> {
  const now = deps.now();
  const result = await deps.db
    .updateTable('emails')
    .set({ status: 'skipped', last_error: reason, locked_until: null })
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
