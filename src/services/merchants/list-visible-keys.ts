import { apiKeysOfMerchants, type ApiKeyListRow } from '../../storage/queries/api-keys.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from '../../domain/viewer.js';

/** More keys than any real gateway has; the console's list shows the newest this many. */
export const KEY_LIST_LIMIT = 500;

export type VisibleKey = ApiKeyListRow;

/** The keys of the merchants the viewer may see, newest first. */
export function listVisibleKeys(deps: Deps, viewer: Viewer): Promise<VisibleKey[]> {
  return apiKeysOfMerchants(deps.db, merchantScope(viewer), KEY_LIST_LIMIT);
}
