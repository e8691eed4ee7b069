// Webhook deliveries (`deliveries`): one job per event and subscribed endpoint, posted signed by the
// webhook dispatcher. An attempt also moves its endpoint's health: a run of failures marks it failing
// (and its merchant hears of it on its alert channels), a success makes it active again.
import { FAILING_AFTER_CONSECUTIVE_FAILURES, nextAttemptDelayMs } from '../../domain/webhook-retry.js';
import { type DueDelivery, dueDeliveries } from '../../storage/queries/deliveries.js';
import { markEndpointFailed, markEndpointSucceeded } from '../../storage/queries/webhook-endpoints.js';
import { alertIfEndpointTurnedFailing } from '../notify/alert-endpoint-failing.js';
import type { Claimed, OutboxQueue } from '../outbox/queue.js';

export type ClaimedDelivery = Claimed<DueDelivery>;

export const webhookQueue: OutboxQueue<DueDelivery> = {
  table: 'deliveries',
  due: dueDeliveries,
  retryDelayMs: (attemptsMade, attempt, _now, random) =>
    nextAttemptDelayMs(attemptsMade, attempt.retryAfterMs ?? null, random()),
  async afterAttempt(trx, delivery, attempt, now) {
    // The endpoint's health follows every attempt made, superseded or not: it is about the receiver.
    if (attempt.result === 'succeeded') {
      await markEndpointSucceeded(trx, delivery.endpointId, now);
    } else {
      // Still retried: failing is a signal to the operator, not a stop.
      await markEndpointFailed(trx, delivery.endpointId, now, FAILING_AFTER_CONSECUTIVE_FAILURES);
      // Its merchant hears of it on its alert channels, once per run of failures.
      await alertIfEndpointTurnedFailing(trx, delivery.endpointId, FAILING_AFTER_CONSECUTIVE_FAILURES, now);
    }
  },
};
