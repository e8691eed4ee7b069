import { secondsToWibMidnight, wibDay } from '../../domain/wib.js';
import { dailyCreates } from '../../storage/queries/daily-creates.js';
import type { Deps } from '../deps.js';
import { quotaOf } from './quota-of.js';

export interface QuotaUsage {
  limit: number;
  used: number;
  remaining: number;
  /** Seconds until the count starts again (midnight WIB). */
  resetSeconds: number;
}

/**
 * Today's use of a limited merchant's quota, or null when it has none. `known` is the quota a caller
 * has just read (a create reads it once for its own check): then it is not looked up again.
 */
export async function quotaUsage(deps: Deps, merchantId: string, known?: number | null): Promise<QuotaUsage | null> {
  const limit = known === undefined ? await quotaOf(deps, merchantId) : known;
  if (limit === null) return null;
  const now = deps.now();
  const used = await dailyCreates(deps.db, merchantId, wibDay(now));
  return { limit, used, remaining: Math.max(0, limit - used), resetSeconds: secondsToWibMidnight(now) };
}
