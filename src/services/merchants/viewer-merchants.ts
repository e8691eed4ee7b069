import { AppError } from '../../domain/errors.js';
import { merchantInScope, merchantsInScope } from '../../storage/queries/merchants.js';
import type { MerchantsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from '../users/viewer.js';

/** The merchants the viewer may see, oldest first: all of them for an operator, its own for a merchant user. */
export function listViewerMerchants(deps: Deps, viewer: Viewer): Promise<MerchantsTable[]> {
  return merchantsInScope(deps.db, merchantScope(viewer));
}

/** One merchant the viewer may see; another merchant's is merchant_not_found, exactly as an unknown id. */
export async function getViewerMerchant(deps: Deps, viewer: Viewer, id: string): Promise<MerchantsTable> {
  const row = await merchantInScope(deps.db, id, merchantScope(viewer));
  if (!row) throw new AppError('merchant_not_found', `no merchant ${id}`, { param: 'merchant' });
  return row;
}
