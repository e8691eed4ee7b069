import { merchantByLinkHandle, type MerchantLinkRow } from '../../storage/queries/payment-links.js';
import type { Deps } from '../deps.js';

/** What a payer's /pay/{handle} names: a merchant taking payments, a disabled one, or nobody. */
export type OpenedLink = { state: 'open'; merchant: MerchantLinkRow } | { state: 'disabled'; merchant: MerchantLinkRow } | { state: 'unknown' };

/** The merchant behind a (lower-case, well-formed) handle. Public: no viewer. */
export async function openPaymentLink(deps: Deps, handle: string): Promise<OpenedLink> {
  const merchant = await merchantByLinkHandle(deps.db, handle);
  if (!merchant) return { state: 'unknown' };
  return merchant.disabled_at === null ? { state: 'open', merchant } : { state: 'disabled', merchant };
}
