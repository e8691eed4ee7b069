import { AppError } from '../../domain/errors.js';
import { merchantLiveApprovedAt } from '../../storage/queries/merchants.js';
import { confirmedMemberEmails } from '../../storage/queries/users.js';
import type { Deps } from '../deps.js';

const APPROVED_MAX = 10_000;

/**
 * Whether the gateway may mail `email` (an invoice now, a receipt later) for this merchant. The mail goes
 * out from the operator's MAIL_FROM with the merchant's name in it, so a merchant no operator has looked
 * at yet (a self-service merchant while LIVE_KEYS=approval) may mail only its own users' confirmed
 * addresses: enough to see its invoices in test mode, useless for mailing strangers. Refused with
 * email_not_allowed, before anything is created. Operators' merchants and approved ones mail anyone.
 *
 * An approval is never taken back, so an approved merchant is remembered for the life of the process and
 * its creates ask the database nothing more.
 */
export async function checkPayerEmail(deps: Deps, merchantId: string, email: string): Promise<void> {
  // With LIVE_KEYS=auto a self-service merchant counts as approved, exactly as its live keys do.
  if (deps.config.liveKeys !== 'approval') return;
  const approved = deps.state.approvedMerchants;
  if (approved.has(merchantId)) return;
  const approvedAt = await merchantLiveApprovedAt(deps.db, merchantId);
  if (approvedAt !== null) {
    if (approvedAt !== undefined) {
      if (approved.size >= APPROVED_MAX) approved.clear();
      approved.add(merchantId);
    }
    return;
  }
  const own = await confirmedMemberEmails(deps.db, merchantId);
  const wanted = email.toLowerCase();
  if (own.some((address) => address.toLowerCase() === wanted)) return;
  throw new AppError(
    'email_not_allowed',
    "this merchant waits for an operator's approval: until then its invoices and receipts go only to its own users' confirmed addresses",
    { param: 'email' },
  );
}
