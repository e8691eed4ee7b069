import type { Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { setMerchantQuota } from '../../storage/queries/daily-creates.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';

/** An operator sets (or, with null, removes) a merchant's daily create quota; audited. */
export async function setDailyQuota(deps: Deps, merchantId: string, quota: number | null, actor: Actor): Promise<void> {
  if (quota !== null && (!Number.isInteger(quota) || quota < 0 || quota > 10_000_000)) {
    throw new AppError('invalid_parameter', 'the daily quota must be a whole number from 0 to 10000000, or unlimited', {
      param: 'quota',
    });
  }
  const now = deps.now();
  await deps.db.runInTransaction(async (trx) => {
    if (!(await setMerchantQuota(trx, merchantId, quota)))
      throw new AppError('merchant_not_found', `no merchant ${merchantId}`, { param: 'merchant' });
    await writeAudit(trx, {
      actor,
      action: 'merchant.quota',
      subjectType: 'merchant',
      subjectId: merchantId,
      details: { daily_create_quota: quota },
      now,
    });
  });
  deps.state.quotas.forget(merchantId);
}
