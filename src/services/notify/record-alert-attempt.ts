// The outcome of one alert attempt: an attempt row always, and the alert's next state while the
// dispatcher still holds its claim (retried with backoff until the schedule is spent).
import { newNotifyAttemptId } from '../../domain/notify-channel.js';
import { notifyRetryDelayMs } from '../../domain/notify-retry.js';
import { insertNotifyAttempt } from '../../storage/queries/notify.js';
import { recordOutboxOutcome } from '../../storage/queries/outbox-lease.js';
import type { Deps } from '../deps.js';
import type { ClaimedAlert } from './claim-alerts.js';

export interface AlertAttemptOutcome {
  attemptedAt: number;
  durationMs: number;
  ok: boolean;
  /** The HTTP status; null for e-mail, or when no answer came. */
  statusCode: number | null;
  /** Why it failed, as shown in the console (never a secret). */
  error: string | null;
  /** How long the service asked us to wait (Telegram's retry_after, Retry-After), if it did. */
  retryAfterMs: number | null;
  /** Retrying cannot help (the relay refused every recipient, the channel has nowhere to send to). */
  permanent?: boolean;
}

export type AlertState = 'succeeded' | 'retrying' | 'failed' | 'superseded';

export async function recordAlertAttempt(
  deps: Deps,
  alert: ClaimedAlert,
  outcome: AlertAttemptOutcome,
  random: () => number = Math.random,
): Promise<{ state: AlertState; nextAttemptAt: number | null }> {
  const now = deps.now();
  const delay = outcome.ok || outcome.permanent ? null : notifyRetryDelayMs(alert.attempts + 1, outcome.retryAfterMs, random());
  const state: Exclude<AlertState, 'superseded'> = outcome.ok ? 'succeeded' : delay === null ? 'failed' : 'retrying';
  const nextAttemptAt = delay === null ? null : now + delay;
  return deps.db.runInTransaction(async (trx) => {
    await insertNotifyAttempt(trx, {
      id: newNotifyAttemptId(),
      delivery_id: alert.id,
      attempted_at: outcome.attemptedAt,
      duration_ms: outcome.durationMs,
      succeeded: outcome.ok ? 1 : 0,
      status_code: outcome.statusCode,
      error: outcome.error,
    });
    const decided = await recordOutboxOutcome(trx, 'notify_deliveries', alert.id, alert.lease, {
      status: state === 'retrying' ? 'pending' : state,
      nextAttemptAt,
      attemptedAt: outcome.attemptedAt,
      statusCode: outcome.statusCode,
    });
    return decided ? { state, nextAttemptAt } : { state: 'superseded' as const, nextAttemptAt: null };
  });
}
