import { merchantByLinkHandle, type MerchantLinkRow } from '../../storage/queries/payment-links.js';
import type { Deps } from '../deps.js';

/**
 * What a payer's /pay/{handle} names: a merchant taking payments, a disabled one, one whose live
 * payments still wait for an operator's approval, or nobody.
 */
export type OpenedLink =
  | { state: 'open' | 'disabled' | 'awaiting_approval'; merchant: MerchantLinkRow }
  | { state: 'unknown' };

/** The merchant behind a (lower-case, well-formed) handle. Public: no viewer. */
export async function openPaymentLink(deps: Deps, handle: string): Promise<OpenedLink> {
  const merchant = await merchantByLinkHandle(deps.db, handle);
  if (!merchant) return { state: 'unknown' };
  if (merchant.disabled_at !== null) return { state: 'disabled', merchant };
  // A link makes live transactions without a key: it must not work for a merchant whose live keys would
  // not (a public service's sign-ups wait for an operator, so that it cannot be used for fraud at once).
  if (merchant.live_approved_at === null) return { state: 'awaiting_approval', merchant };
  return { state: 'open', merchant };
}
