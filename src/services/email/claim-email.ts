import type { EmailsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { claimDue } from '../outbox/claim-due.js';
import type { Claimed } from '../outbox/queue.js';
import { emailQueue } from './email-queue.js';

/** Takes one e-mail by id for `leaseMs` if it is due and no mailer holds it; null otherwise. */
export async function claimEmail(deps: Deps, id: string, leaseMs: number): Promise<Claimed<EmailsTable> | null> {
  const [claimed] = await claimDue(deps, emailQueue, { limit: 1, leaseMs, only: id });
  return claimed ?? null;
}
