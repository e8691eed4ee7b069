// Resending: an operator puts deliveries back in the queue, due now, with a fresh retry schedule
// (attempts start again from zero; the attempt history is kept). Receivers see the same event id again
// and deduplicate by it.
import { SYSTEM_ACTOR, type Actor } from '../../domain/actor.js';
import type { Tx } from '../../storage/executor.js';
import { deliveryIdsOfEvent, failedDeliveryIdsOf, insertDeliveries, requeueDeliveries } from '../../storage/queries/deliveries.js';
import { eventMerchant } from '../../storage/queries/outbox.js';
import { AppError } from '../../domain/errors.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { newDelivery } from './new-delivery.js';
import { getWebhookEndpoint } from './get-webhook-endpoint.js';

export interface ResendResult {
  requeued: number;
  deliveries: string[];
}

async function requeue(trx: Tx, ids: string[], now: number): Promise<void> {
  // Clearing the claim means a send already in flight loses it: its result is recorded as an attempt
  // but no longer decides the delivery's state, and the resend goes out as asked.
  await requeueDeliveries(trx, ids, now);
}

async function usableEndpoint(deps: Deps, endpointId: string) {
  const endpoint = await getWebhookEndpoint(deps, endpointId);
  if (endpoint.status === 'disabled') {
    throw new AppError('invalid_parameter', `webhook endpoint ${endpointId} is disabled`, { param: 'endpoint' });
  }
  return endpoint;
}

/**
 * Resends one event: to every endpoint it was delivered to (or meant for), or to one endpoint, which
 * may be one added after the event (it then gets a delivery of its own).
 */
export async function resendEvent(deps: Deps, input: { eventId: string; endpointId?: string; actor?: Actor }): Promise<ResendResult> {
  const event = await eventMerchant(deps.db, input.eventId);
  if (!event) throw new AppError('not_found', `no event ${input.eventId}`, { param: 'event' });
  const endpoint = input.endpointId ? await usableEndpoint(deps, input.endpointId) : null;
  if (endpoint && endpoint.merchant_id !== event.merchant_id) {
    // Another merchant's endpoint must never receive this merchant's events.
    throw new AppError('invalid_parameter', `event ${event.id} belongs to another merchant than endpoint ${endpoint.id}`, { param: 'endpoint' });
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
