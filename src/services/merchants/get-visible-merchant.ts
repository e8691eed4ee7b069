import { AppError } from '../../domain/errors.js';
import { merchantInScope } from '../../storage/queries/merchants.js';
import type { MerchantsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from '../../domain/viewer.js';

/** One merchant the viewer may see; another merchant's is merchant_not_found, exactly as an unknown id. */
export async function getVisibleMerchant(deps: Deps, viewer: Viewer, id: string): Promise<MerchantsTable> {
  const row = await merchantInScope(deps.db, id, merchantScope(viewer));
  if (!row) throw new AppError('merchant_not_found', `no merchant ${id}`, { param: 'merchant' });
  return row;
}
