// The outcome of one webhook attempt: an attempt row always, the delivery's next state while the
// dispatcher still holds its claim, and the endpoint's health (a run of failures marks it failing; a
// success makes it active again).
import { insertDeliveryAttempt } from '../../storage/queries/deliveries.js';
import { markEndpointFailed, markEndpointSucceeded } from '../../storage/queries/webhook-endpoints.js';
import { newAttemptId } from '../../domain/ids.js';
import { FAILING_AFTER_CONSECUTIVE_FAILURES, nextAttemptDelayMs, parseRetryAfter } from '../../domain/webhook-retry.js';
import type { ClaimedDelivery } from './claim-deliveries.js';
import { recordOutboxOutcome } from '../../storage/queries/outbox-lease.js';
import type { Deps } from '../deps.js';
import { alertIfEndpointTurnedFailing } from '../notify/alert-endpoint-failing.js';

export interface AttemptOutcome {
  /** When the attempt started (deps.now()), and how long it took on the wall clock. */
  attemptedAt: number;
  durationMs: number;
  statusCode: number | null;
  responseBody: string | null;
  retryAfter: string | null;
  error: string | null;
}

export type DeliveryState = 'succeeded' | 'retrying' | 'failed' | 'superseded';

export async function recordDeliveryAttempt(
  deps: Deps,
  delivery: ClaimedDelivery,
  outcome: AttemptOutcome,
  random: () => number = Math.random,
): Promise<{ state: DeliveryState; nextAttemptAt: number | null }> {
  const now = deps.now();
  const ok = outcome.error === null && outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode <= 299;
  const attemptsMade = delivery.attempts + 1;
  const delay = ok ? null : nextAttemptDelayMs(attemptsMade, parseRetryAfter(outcome.retryAfter, now), random());
  const state: Exclude<DeliveryState, 'superseded'> = ok ? 'succeeded' : delay === null ? 'failed' : 'retrying';
  const nextAttemptAt = delay === null ? null : now + delay;

  return deps.db.runInTransaction(async (trx) => {
    await insertDeliveryAttempt(trx, {
      id: newAttemptId(),
      delivery_id: delivery.id,
      attempted_at: outcome.attemptedAt,
      duration_ms: outcome.durationMs,
      succeeded: ok ? 1 : 0,
      status_code: outcome.statusCode,
      response_body: outcome.responseBody,
      error: outcome.error,
    });
    // Only the holder of the claim decides; a resend in the meantime has taken it over.
    const decided = await recordOutboxOutcome(trx, 'deliveries', delivery.id, delivery.lease, {
      status: state === 'retrying' ? 'pending' : state,
      nextAttemptAt,
      attemptedAt: outcome.attemptedAt,
      statusCode: outcome.statusCode,
    });

    // The endpoint's health follows every attempt made, superseded or not: it is about the receiver.
    if (ok) {
      await markEndpointSucceeded(trx, delivery.endpointId, now);
    } else {
      // Still retried: failing is a signal to the operator, not a stop.
      await markEndpointFailed(trx, delivery.endpointId, now, FAILING_AFTER_CONSECUTIVE_FAILURES);
      // Its merchant hears of it on its alert channels, once per run of failures.
      await alertIfEndpointTurnedFailing(trx, delivery.endpointId, FAILING_AFTER_CONSECUTIVE_FAILURES, now);
    }
    return decided ? { state, nextAttemptAt } : { state: 'superseded' as const, nextAttemptAt: null };
  });
}
