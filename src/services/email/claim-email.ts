// Row claims on the `emails` outbox. Several mailer processes may run at once (on SQLite and on
// PostgreSQL), so every state change is a conditional update: a claim succeeds only while the row is
// still pending and unleased, and a result is written only while the writer still holds its lease
// (finish-email.ts).
import { leaseDueEmail } from '../../storage/queries/emails.js';
import type { EmailsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

export interface EmailClaim {
  row: EmailsTable;
  /** The lease this claim wrote; finishing checks it, so a mailer whose lease ran out writes nothing. */
  lease: number;
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
