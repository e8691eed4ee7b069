import { skipEveryDueEmail } from '../../storage/queries/emails.js';
import type { Deps } from '../deps.js';

/** Without SMTP every due row is recorded as skipped in one statement: not an error, nothing to retry. */
export async function skipDueEmails(deps: Deps, reason: string): Promise<number> {
  return skipEveryDueEmail(deps.db, deps.now(), reason);
}
