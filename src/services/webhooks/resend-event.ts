// Resending: an operator puts deliveries back in the queue, due now, with a fresh retry schedule
// (attempts start again from zero; the attempt history is kept). Receivers see the same event id again
// and deduplicate by it.
import { SYSTEM_ACTOR, type Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { deliveryIdsOfEvent, insertDeliveries } from '../../storage/queries/deliveries.js';
import { eventMerchant } from '../../storage/queries/outbox.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { newDelivery } from './new-delivery.js';
import { requeue } from './requeue.js';
import { usableEndpoint } from './usable-endpoint.js';

/** What a resend put back in the queue (resend-event.ts and resend-failed.ts alike). */
export interface ResendResult {
  requeued: number;
  deliveries: string[];
}

/**
 * Resends one event: to every endpoint it was delivered to (or meant for), or to one endpoint, which
 * may be one added after the event (it then gets a delivery of its own).
 */
export async function resendEvent(
  deps: Deps,
  input: { eventId: string; endpointId?: string; actor?: Actor },
): Promise<ResendResult> {
  const event = await eventMerchant(deps.db, input.eventId);
  if (!event) throw new AppError('not_found', `no event ${input.eventId}`, { param: 'event' });
  const endpoint = input.endpointId ? await usableEndpoint(deps, input.endpointId) : null;
  if (endpoint && endpoint.merchant_id !== event.merchant_id) {
    // Another merchant's endpoint must never receive this merchant's events.
    throw new AppError(
      'invalid_parameter',
      `event ${event.id} belongs to another merchant than endpoint ${endpoint.id}`,
      { param: 'endpoint' },
    );
  }
  const now = deps.now();
  const ids = await deps.db.runInTransaction(async (trx) => {
    const ids = await deliveryIdsOfEvent(trx, event.id, endpoint ? endpoint.id : null);
    if (endpoint && ids.length === 0) {
      const delivery = newDelivery(event.id, endpoint.id, now);
      await insertDeliveries(trx, [delivery]);
      ids.push(delivery.id);
    } else {
      await requeue(trx, ids, now);
    }
    await writeAudit(trx, {
      actor: input.actor ?? SYSTEM_ACTOR,
      action: 'webhook.resend',
      subjectType: 'event',
      subjectId: event.id,
      details: { endpoint: endpoint?.id ?? null, deliveries: ids },
      now,
    });
    return ids;
  });
  return { requeued: ids.length, deliveries: ids };
}
