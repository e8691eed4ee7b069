import { AppError } from '../../domain/errors.js';
import { markLiveApproved, merchantById } from '../../storage/queries/merchants.js';
import type { MerchantsTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import type { Viewer } from '../../domain/viewer.js';

/**
 * An operator approves a merchant's live keys (a waiting one, or one rejected before). Keys already made start working within the API's
 * key-cache time (5 s), and at once in this process.
 */
export async function approveLive(deps: Deps, viewer: Viewer, merchantId: string): Promise<MerchantsTable> {
  if (viewer.role !== 'operator') throw new AppError('not_found', `no merchant ${merchantId}`);
  const now = deps.now();
  await deps.db.runInTransaction(async (trx) => {
    const merchant = await merchantById(trx, merchantId);
    if (!merchant) throw new AppError('merchant_not_found', `no merchant ${merchantId}`, { param: 'merchant' });
    if (await markLiveApproved(trx, merchantId, now)) {
      // Approving a rejected merchant takes the rejection back too: the entry says whose it was.
      const details =
        merchant.live_rejected_at != null
          ? { rejected_at: merchant.live_rejected_at, rejected_by: merchant.live_rejected_by ?? null }
          : undefined;
      await writeAudit(trx, {
        actor: viewer.actor,
        action: 'merchant.approve_live',
        subjectType: 'merchant',
        subjectId: merchantId,
        details,
        now,
      });
    }
  });
  deps.state.principals.clear(performance.now());
  return (await merchantById(deps.db, merchantId))!;
}
