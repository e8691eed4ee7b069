import { wibDay } from '../../domain/wib.js';
import { dailyCreates, linkCreates } from '../../storage/queries/daily-creates.js';
import type { Deps } from '../deps.js';
import type { DailyLimit } from '../transactions/create-input.js';
import { quotaExceeded } from './quota-exceeded.js';

const countOf = (db: Deps['db'], merchantId: string, counter: DailyLimit['counter'], day: number) =>
  counter === 'link' ? linkCreates(db, merchantId, day) : dailyCreates(db, merchantId, day);

/** Refuses early, before any work (an acquirer's code), when today's count is already used up. */
export async function checkQuota(deps: Deps, merchantId: string, limit: DailyLimit): Promise<void> {
  const now = deps.now();
  if ((await countOf(deps.db, merchantId, limit.counter, wibDay(now))) >= limit.limit) throw quotaExceeded(limit, now);
}
