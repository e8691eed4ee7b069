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

/** Today's use of a limited merchant's quota, or null when it has none. */
export async function quotaUsage(deps: Deps, merchantId: string): Promise<QuotaUsage | null> {
  const limit = await quotaOf(deps, merchantId);
  if (limit === null) return null;
  const now = deps.now();
  const used = await dailyCreates(deps.db, merchantId, wibDay(now));
  return { limit, used, remaining: Math.max(0, limit - used), resetSeconds: secondsToWibMidnight(now) };
}
