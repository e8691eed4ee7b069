import { actorText } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import type { Viewer } from '../../domain/viewer.js';
import { markLiveRejected, merchantById } from '../../storage/queries/merchants.js';
import type { MerchantsTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';

/**
 * An operator rejects a waiting merchant's live keys: they answer 403 live_rejected, and the merchant
 * leaves the queue, until an operator approves it or asks again (askAgainLive). A merchant that no longer
 * waits (approved meanwhile, or rejected already) is left as it is; the caller sees its state in the row.
 */
export async function rejectLive(deps: Deps, viewer: Viewer, merchantId: string): Promise<MerchantsTable> {
  if (viewer.role !== 'operator') throw new AppError('not_found', `no merchant ${merchantId}`);
  const now = deps.now();
  const actor = viewer.actor;
  await deps.db.runInTransaction(async (trx) => {
    const merchant = await merchantById(trx, merchantId);
    if (!merchant) throw new AppError('merchant_not_found', `no merchant ${merchantId}`, { param: 'merchant' });
    if (await markLiveRejected(trx, merchantId, now, actorText(actor))) {
      await writeAudit(trx, {
        actor,
        action: 'merchant.reject_live',
        subjectType: 'merchant',
        subjectId: merchantId,
        details: { name: merchant.name, nmid: merchant.nmid },
        now,
      });
    }
  });
  return (await merchantById(deps.db, merchantId))!;
}
