// The outcome of one webhook attempt: an attempt row always, the delivery's next state while the
// dispatcher still holds its claim, and the endpoint's health (a run of failures marks it failing; a
// success makes it active again).
import { sql } from 'kysely';
import { runInTransaction } from '../../storage/unit-of-work.js';
import { newAttemptId } from '../../domain/ids.js';
import { FAILING_AFTER_CONSECUTIVE_FAILURES, nextAttemptDelayMs, parseRetryAfter } from '../../domain/webhook-retry.js';
import type { ClaimedDelivery } from './claim-deliveries.js';
import type { Deps } from '../deps.js';

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

  return runInTransaction(deps, async (trx) => {
    await trx
      .insertInto('delivery_attempts')
      .values({
        id: newAttemptId(),
        delivery_id: delivery.id,
        attempted_at: outcome.attemptedAt,
        duration_ms: outcome.durationMs,
        succeeded: ok ? 1 : 0,
        status_code: outcome.statusCode,
        response_body: outcome.responseBody,
        error: outcome.error,
      })
      .execute();
    const updated = await trx
      .updateTable('deliveries')
      .set({
        status: state === 'retrying' ? 'pending' : state,
        attempts: sql<number>`attempts + 1`,
        ...(nextAttemptAt === null ? {} : { next_attempt_at: nextAttemptAt }),
        locked_until: null,
        last_attempt_at: outcome.attemptedAt,
        last_status_code: outcome.statusCode,
      })
      .where('id', '=', delivery.id)
      // Only the holder of the claim decides; a resend in the meantime has taken it over.
      .where('locked_until', '=', delivery.lease)
      .executeTakeFirst();

    // The endpoint's health follows every attempt made, superseded or not: it is about the receiver.
    if (ok) {
      await trx
        .updateTable('webhook_endpoints')
        .set({ consecutive_failures: 0, status: sql`case when status = 'failing' then 'active' else status end`, updated_at: now })
        .where('id', '=', delivery.endpointId)
        .where((eb) => eb.or([eb('consecutive_failures', '>', 0), eb('status', '=', 'failing')]))
        .execute();
    } else {
      await trx
        .updateTable('webhook_endpoints')
        .set({
          consecutive_failures: sql<number>`consecutive_failures + 1`,
          // Still retried: failing is a signal to the operator, not a stop.
          status: sql`case when status = 'active' and consecutive_failures + 1 >= ${FAILING_AFTER_CONSECUTIVE_FAILURES} then 'failing' else status end`,
          updated_at: now,
        })
        .where('id', '=', delivery.endpointId)
        .execute();
    }
    return Number(updated.numUpdatedRows) === 1 ? { state, nextAttemptAt } : { state: 'superseded' as const, nextAttemptAt: null };
  });
}
