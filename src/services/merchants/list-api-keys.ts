import { apiKeysInOrder } from '../../storage/queries/api-keys.js';
import type { Deps } from '../deps.js';
import { summary, type ApiKeySummary } from './api-key-summary.js';

export async function listApiKeys(deps: Deps, merchantId?: string): Promise<ApiKeySummary[]> {
  return (await apiKeysInOrder(deps.db, merchantId)).map(summary);
}
