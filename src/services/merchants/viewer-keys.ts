import { userActor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { apiKeyInScope, apiKeysOfMerchants, type ApiKeyListRow } from '../../storage/queries/api-keys.js';
import type { Mode } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from '../users/viewer.js';
import { createApiKey, revokeApiKey, type ApiKeySummary, type CreatedApiKey } from './api-keys.js';
import { getViewerMerchant } from './viewer-merchants.js';

/** More keys than any real gateway has; the console's list shows the newest this many. */
export const KEY_LIST_LIMIT = 500;

export type ViewerKey = ApiKeyListRow;

/** The keys of the merchants the viewer may see, newest first. */
export function listViewerKeys(deps: Deps, viewer: Viewer): Promise<ViewerKey[]> {
  return apiKeysOfMerchants(deps.db, merchantScope(viewer), KEY_LIST_LIMIT);
}

/** A new key for one of the viewer's merchants (any merchant for an operator); audited as the viewer. */
export async function createViewerKey(deps: Deps, viewer: Viewer, input: { merchantId: string; mode: string }): Promise<CreatedApiKey> {
  if (input.mode !== 'test' && input.mode !== 'live') throw new AppError('invalid_parameter', 'mode must be test or live', { param: 'mode' });
  const merchant = await getViewerMerchant(deps, viewer, input.merchantId);
  return createApiKey(deps, { merchantId: merchant.id, mode: input.mode as Mode, actor: userActor(viewer) });
}

/** Revokes a key of one of the viewer's merchants; another merchant's key is not_found, as an unknown one. */
export async function revokeViewerKey(deps: Deps, viewer: Viewer, id: string): Promise<ApiKeySummary> {
  const row = await apiKeyInScope(deps.db, id, merchantScope(viewer));
  if (!row) throw new AppError('not_found', `no API key ${id}`, { param: 'id' });
  return revokeApiKey(deps, row.id, userActor(viewer));
}
