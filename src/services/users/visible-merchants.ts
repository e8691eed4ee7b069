import { merchantNames } from '../../storage/queries/merchants.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from './viewer.js';

/** The merchants the viewer may see, by name (id and name only): for a form's merchant select and for labels. */
export async function visibleMerchants(deps: Deps, viewer: Viewer): Promise<{ id: string; name: string }[]> {
  return merchantNames(deps.db, merchantScope(viewer));
}
