// Row claims on the `emails` outbox. Several mailer processes may run at once (on SQLite and on
// PostgreSQL), so every state change is a conditional update: a claim succeeds only while the row is
// still pending and unleased, and a result is written only while the writer still holds its lease.
import { type EmailOutcome, dueEmailIds, leaseDueEmail, recordEmailOutcome, skipEveryDueEmail } from '../../storage/queries/emails.js';
import type { EmailsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

export type { EmailOutcome } from '../../storage/queries/emails.js';

export interface EmailClaim {
  row: EmailsTable;
  /** The lease this claim wrote; finishing checks it, so a mailer whose lease ran out writes nothing. */
  lease: number;
}

const LAST_ERROR_MAX = 500;

/** Ids of rows due now, oldest first; claiming them is a separate step that may lose to another mailer. */
export async function findDueEmailIds(deps: Deps, limit: number): Promise<string[]> {
  return dueEmailIds(deps.db, deps.now(), limit);
}

/**
 * Takes one row for `leaseMs`. The WHERE repeats the due check, so of two mailers that both saw the row
 * only one update matches (PostgreSQL re-checks it after the row lock; SQLite serialises writers).
 * A mailer that dies mid-send leaves the lease to run out, and the row is sent again: at least once.
 */
export async function claimEmail(deps: Deps, id: string, leaseMs: number): Promise<EmailClaim | null> {
  const now = deps.now();
  const lease = now + leaseMs;
  const row = await leaseDueEmail(deps.db, id, now, lease);
  return row ? { row, lease } : null;
}

/** Records the result of a claimed row; false when the lease was lost meanwhile (nothing written). */
export async function finishEmail(deps: Deps, claim: EmailClaim, outcome: EmailOutcome): Promise<boolean> {
  const now = deps.now();
  const stored: EmailOutcome =
    outcome.status === 'retry' || outcome.status === 'failed' ? { ...outcome, error: outcome.error.slice(0, LAST_ERROR_MAX) } : outcome;
  return recordEmailOutcome(deps.db, claim.row.id, claim.lease, stored, now);
}

/** Without SMTP every due row is recorded as skipped in one statement: not an error, nothing to retry. */
export async function skipDueEmails(deps: Deps, reason: string): Promise<number> {
  return skipEveryDueEmail(deps.db, deps.now(), reason);
}
