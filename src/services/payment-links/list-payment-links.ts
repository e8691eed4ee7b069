import { merchantLinksInScope, type MerchantLinkRow } from '../../storage/queries/payment-links.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from '../../domain/viewer.js';

export type { MerchantLinkRow } from '../../storage/queries/payment-links.js';

export const LINKS_PAGE_SIZE = 50;

/** The merchants the viewer may see with their payment-link handles, by name, one page (from 1) at a time. */
export function listPaymentLinks(
  deps: Deps,
  viewer: Viewer,
  page: number,
): Promise<{ rows: MerchantLinkRow[]; total: number }> {
  return merchantLinksInScope(deps.db, merchantScope(viewer), LINKS_PAGE_SIZE, (page - 1) * LINKS_PAGE_SIZE);
}
