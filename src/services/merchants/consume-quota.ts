import { wibDay } from '../../domain/wib.js';
import type { Tx } from '../../storage/executor.js';
import { countDailyCreate, countLinkCreate } from '../../storage/queries/daily-creates.js';
import type { DailyLimit } from '../transactions/create-input.js';
import { quotaExceeded } from './quota-exceeded.js';

/**
 * Counts a create against its daily count inside its own database transaction; throws quota_exceeded
 * (which rolls the create back) when none is left. Exact under any concurrency and across instances.
 */
export async function consumeQuota(trx: Tx, merchantId: string, limit: DailyLimit, now: number): Promise<void> {
  const day = wibDay(now);
  const counted =
    limit.counter === 'link'
      ? await countLinkCreate(trx, merchantId, day, limit.limit)
      : await countDailyCreate(trx, merchantId, day, limit.limit);
  if (counted === null) throw quotaExceeded(limit, now);
}
