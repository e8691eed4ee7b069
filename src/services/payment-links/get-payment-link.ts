import { AppError } from '../../domain/errors.js';
import { merchantLinkInScope, type MerchantLinkRow } from '../../storage/queries/payment-links.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from '../../domain/viewer.js';

/** One merchant the viewer may see, with its handle; merchant_not_found for any other (a 404). */
export async function getPaymentLink(deps: Deps, viewer: Viewer, merchantId: string): Promise<MerchantLinkRow> {
  const row = await merchantLinkInScope(deps.db, merchantScope(viewer), merchantId);
  if (!row) throw new AppError('merchant_not_found', `no merchant ${merchantId}`, { param: 'merchant' });
  return row;
}
