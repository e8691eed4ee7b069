import { type EmailOutcome, recordEmailOutcome } from '../../storage/queries/emails.js';
import type { Deps } from '../deps.js';
import type { EmailClaim } from './claim-email.js';

export type { EmailOutcome } from '../../storage/queries/emails.js';

const LAST_ERROR_MAX = 500;

/** Records the result of a claimed row; false when the lease was lost meanwhile (nothing written). */
export async function finishEmail(deps: Deps, claim: EmailClaim, outcome: EmailOutcome): Promise<boolean> {
  const now = deps.now();
  const stored: EmailOutcome =
    outcome.status === 'retry' || outcome.status === 'failed' ? { ...outcome, error: outcome.error.slice(0, LAST_ERROR_MAX) } : outcome;
  return recordEmailOutcome(deps.db, claim.row.id, claim.lease, stored, now);
}
