import { AppError } from '../../domain/errors.js';
import type { Viewer } from '../../domain/viewer.js';
import { clearLiveRejected, merchantById } from '../../storage/queries/merchants.js';
import type { MerchantsTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';

/**
 * An operator takes a rejection back ("Ask again"): the merchant waits in the approval queue again, and
 * its live keys answer live_not_approved instead of live_rejected. Nothing changes for a merchant that is
 * not rejected.
 */
export async function askAgainLive(deps: Deps, viewer: Viewer, merchantId: string): Promise<MerchantsTable> {
  if (viewer.role !== 'operator') throw new AppError('not_found', `no merchant ${merchantId}`);
  const now = deps.now();
  await deps.db.runInTransaction(async (trx) => {
    const merchant = await merchantById(trx, merchantId);
    if (!merchant) throw new AppError('merchant_not_found', `no merchant ${merchantId}`, { param: 'merchant' });
    if (await clearLiveRejected(trx, merchantId)) {
      await writeAudit(trx, {
        actor: viewer.actor,
        action: 'merchant.ask_again_live',
        subjectType: 'merchant',
        subjectId: merchantId,
        details: { rejected_at: merchant.live_rejected_at ?? null, rejected_by: merchant.live_rejected_by ?? null },
        now,
      });
    }
  });
  return (await merchantById(deps.db, merchantId))!;
}
