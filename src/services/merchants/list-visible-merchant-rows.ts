import { merchantsInScope } from '../../storage/queries/merchants.js';
import type { MerchantsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from '../../domain/viewer.js';

/** The merchants the viewer may see, oldest first: all of them for an operator, its own for a merchant user. */
export function listVisibleMerchantRows(deps: Deps, viewer: Viewer): Promise<MerchantsTable[]> {
  return merchantsInScope(deps.db, merchantScope(viewer));
}
