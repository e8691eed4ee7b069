// Resending: an operator puts deliveries back in the queue, due now, with a fresh retry schedule
// (attempts start again from zero; the attempt history is kept). Receivers see the same event id again
// and deduplicate by it.
import { SYSTEM_ACTOR, type Actor } from '../../domain/actor.js';
import { failedDeliveryIdsOf } from '../../storage/queries/deliveries.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import type { ResendResult } from './resend-event.js';
import { requeue } from './requeue.js';
import { usableEndpoint } from './usable-endpoint.js';

/** Resends every delivery of an endpoint that ran out of retries (after fixing the receiver, say). */
export async function resendFailed(deps: Deps, input: { endpointId: string; actor?: Actor }): Promise<ResendResult> {
  const endpoint = await usableEndpoint(deps, input.endpointId);
  const now = deps.now();
  const ids = await deps.db.runInTransaction(async (trx) => {
    const ids = await failedDeliveryIdsOf(trx, endpoint.id);
    // Chunks keep the IN list within every database's parameter limit.
    for (let i = 0; i < ids.length; i += 500) await requeue(trx, ids.slice(i, i + 500), now);
    await writeAudit(trx, {
      actor: input.actor ?? SYSTEM_ACTOR,
      action: 'webhook.resend_failed',
      subjectType: 'webhook_endpoint',
      subjectId: endpoint.id,
      details: { count: ids.length },
      now,
    });
    return ids;
  });
  return { requeued: ids.length, deliveries: ids };
}
