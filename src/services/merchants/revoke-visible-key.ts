import { AppError } from '../../domain/errors.js';
import { apiKeyInScope } from '../../storage/queries/api-keys.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from '../../domain/viewer.js';
import type { ApiKeySummary } from './api-key-summary.js';
import { revokeApiKey } from './revoke-api-key.js';

/** Revokes a key of one of the viewer's merchants; another merchant's key is not_found, as an unknown one. */
export async function revokeVisibleKey(deps: Deps, viewer: Viewer, id: string): Promise<ApiKeySummary> {
  const row = await apiKeyInScope(deps.db, id, merchantScope(viewer));
  if (!row) throw new AppError('not_found', `no API key ${id}`, { param: 'id' });
  return revokeApiKey(deps, row.id, viewer.actor);
}
