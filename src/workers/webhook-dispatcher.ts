// The webhook dispatcher: claims due deliveries, posts them signed, records each attempt. Runs in every
// worker process; claims (see claim-deliveries.ts) keep several of them from sending the same delivery.
import { claimDueDeliveries, type ClaimedDelivery } from '../services/webhooks/claim-deliveries.js';
import type { Deps } from '../services/deps.js';
import { recordDeliveryAttempt, type DeliveryState } from '../services/webhooks/record-delivery-attempt.js';
import { signStandardWebhook, signWebhookPayload } from '../webhook-signature.js';
import { isOutage } from './outage-backoff.js';
import { runEvery } from './run-every.js';
import { USER_AGENT, postWebhook, type PostRequest, type PostResult } from './post-webhook.js';

export interface DispatchOptions {
  /** Deliveries in flight at once (and claimed per pass). */
  concurrency?: number;
  /** Random numbers for retry jitter (tests pin it). */
  random?: () => number;
  /** The HTTP call (tests may wrap it to watch); postWebhook by default. */
  post?: (request: PostRequest) => Promise<PostResult>;
}

export interface DispatchReport {
  claimed: number;
  states: Array<DeliveryState | 'unrecorded'>;
}

const DEFAULT_CONCURRENCY = 8;

/**
 * A claim outlives the slowest possible attempt (the HTTP timeout) by a margin for recording it; a
 * dispatcher that dies mid-attempt leaves the delivery to others once this passes.
 */
export function leaseMs(deps: Deps): number {
  return deps.config.webhookTimeoutMs + 15_000;
}

/**
 * The headers of one attempt, signed twice over the same body and time: Standard Webhooks (`webhook-id`,
 * the event id, the same on every attempt and resend; `webhook-timestamp`; `webhook-signature`) and the
 * older `X-Signature`. Throws a TypeError for a secret that is not `whsec_` + base64, which the gateway
 * never makes.
 */
export function buildHeaders(delivery: ClaimedDelivery, nowMs: number): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'X-Event-Id': delivery.eventId,
    'X-Event-Type': delivery.eventType,
    'X-Signature': signWebhookPayload(delivery.secret, delivery.payload, timestamp),
    'webhook-id': delivery.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signStandardWebhook(delivery.secret, delivery.eventId, timestamp, delivery.payload),
  };
}

/**
 * The attempt's headers, or why it cannot be signed. Only a secret changed by hand in the database gets
 * the latter: nothing unsigned is sent; the attempt is recorded as failed with the reason, so the
 * operator sees it, and retried on the usual schedule.
 */
function headersOrRefusal(delivery: ClaimedDelivery, nowMs: number): { headers: Record<string, string> } | { refused: PostResult } {
  try {
    return { headers: buildHeaders(delivery, nowMs) };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return {
      refused: { statusCode: null, responseBody: null, retryAfter: null, error: `not sent: cannot sign with the endpoint's secret (${reason})`, durationMs: 0 },
    };
  }
}

async function deliver(deps: Deps, delivery: ClaimedDelivery, options: DispatchOptions): Promise<DeliveryState> {
  const attemptedAt = deps.now();
  const post = options.post ?? postWebhook;
  const signed = headersOrRefusal(delivery, attemptedAt);
  const result =
    'refused' in signed
      ? signed.refused
      : await post({
          url: delivery.url,
          body: delivery.payload,
          headers: signed.headers,
          timeoutMs: deps.config.webhookTimeoutMs,
          allow: deps.config.webhookAllowNetworks,
        });
  const recorded = await recordDeliveryAttempt(deps, delivery, { ...result, attemptedAt }, options.random);
  if (recorded.state !== 'succeeded') {
    deps.logger.warn(
      { delivery: delivery.id, event: delivery.eventId, endpoint: delivery.endpointId, status: result.statusCode, error: result.error, state: recorded.state },
      'webhook attempt failed',
    );
  }
  return recorded.state;
}

/** One pass: claims what is due (up to the concurrency) and sends it all. Tests drive time with it. */
export async function dispatchDueDeliveries(deps: Deps, options: DispatchOptions = {}): Promise<DispatchReport> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const claimed = await claimDueDeliveries(deps, { limit: concurrency, leaseMs: leaseMs(deps) });
  // Every send of the pass is awaited, failed or not, so no more than `concurrency` are ever in flight.
  // One whose outcome could not be stored (database gone) keeps its claim until the lease ends and is
  // then sent again: at least once, never lost.
  const settled = await Promise.allSettled(claimed.map((d) => deliver(deps, d, options)));
  const states = settled.map((s, i) => {
    if (s.status === 'fulfilled') return s.value;
    // During a database outage this is expected, and the delivery is not lost: said as a warning.
    const log = isOutage(s.reason) ? deps.logger.warn.bind(deps.logger) : deps.logger.error.bind(deps.logger);
    log({ err: s.reason, delivery: claimed[i]!.id }, 'could not record a webhook attempt; it is sent again once its claim expires');
    return 'unrecorded' as const;
  });
  return { claimed: claimed.length, states };
}

/**
 * Runs passes every `intervalMs`; after a full pass it goes again at once, so a backlog drains at the
 * concurrency's pace rather than one batch per interval. A failing pass is logged and the next tick
 * tries again; while the database is unavailable the dispatcher backs off (outage-backoff.ts).
 */
export function startWebhookDispatcher(deps: Deps, options: DispatchOptions & { intervalMs?: number } = {}): { stop(): Promise<void> } {
  const intervalMs = options.intervalMs ?? deps.config.webhookDispatchIntervalMs;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  // A line per pass at debug level: a test of another process counts passes in its log rather than waiting.
  const pass = async () => {
    const report = await dispatchDueDeliveries(deps, { ...options, concurrency });
    deps.logger.debug({ claimed: report.claimed }, 'webhook dispatch pass');
    return report;
  };
  return runEvery(intervalMs, pass, deps.logger, 'webhook dispatch failed', {
    again: (report) => report.claimed >= concurrency,
  });
}
