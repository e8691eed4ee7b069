import { merchantQuota } from '../../storage/queries/daily-creates.js';
import type { Deps } from '../deps.js';

/** The merchant's daily create quota (null: none), cached for a few seconds. */
export async function quotaOf(deps: Deps, merchantId: string): Promise<number | null> {
  const now = performance.now();
  const cached = deps.state.quotas.get(merchantId, now);
  if (cached !== undefined) return cached;
  const quota = (await merchantQuota(deps.db, merchantId)) ?? null;
  deps.state.quotas.set(merchantId, quota, now);
  return quota;
}
