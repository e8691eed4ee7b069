import { merchantNames } from '../../storage/queries/merchants.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from '../../domain/viewer.js';

/** The merchants the viewer may see (their ids and names), by name: for the console's merchant filters. */
export function listVisibleMerchants(deps: Deps, viewer: Viewer): Promise<Array<{ id: string; name: string }>> {
  return merchantNames(deps.db, merchantScope(viewer));
}
