import { AppError } from '../../domain/errors.js';
import { merchantLinkInScope, merchantLinksInScope, type MerchantLinkRow } from '../../storage/queries/payment-links.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from '../users/viewer.js';

export type { MerchantLinkRow } from '../../storage/queries/payment-links.js';

export const LINKS_PAGE_SIZE = 50;

/** The merchants the viewer may see with their payment-link handles, by name, one page (from 1) at a time. */
export function listPaymentLinks(deps: Deps, viewer: Viewer, page: number): Promise<{ rows: MerchantLinkRow[]; total: number }> {
  return merchantLinksInScope(deps.db, merchantScope(viewer), LINKS_PAGE_SIZE, (page - 1) * LINKS_PAGE_SIZE);
}

/** One merchant the viewer may see, with its handle; merchant_not_found for any other (a 404). */
export async function getPaymentLink(deps: Deps, viewer: Viewer, merchantId: string): Promise<MerchantLinkRow> {
  const row = await merchantLinkInScope(deps.db, merchantScope(viewer), merchantId);
  if (!row) throw new AppError('merchant_not_found', `no merchant ${merchantId}`, { param: 'merchant' });
  return row;
}
