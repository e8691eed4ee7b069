import { AppError } from '../../domain/errors.js';
import type { MerchantsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { isOperator, type Viewer } from '../../domain/viewer.js';
import { getVisibleMerchant } from './get-visible-merchant.js';

/** Merchants are changed by operators only; to anyone else the merchant does not exist. */
export async function operatorsMerchant(deps: Deps, viewer: Viewer, id: string): Promise<MerchantsTable> {
  if (!isOperator(viewer)) throw new AppError('merchant_not_found', `no merchant ${id}`, { param: 'merchant' });
  return getVisibleMerchant(deps, viewer, id);
}
