// The webhook dispatcher: the sender of the outbox's webhook deliveries (services/webhooks/webhook-queue.ts),
// posting each signed to its endpoint. Runs in every worker process; the outbox's claims keep several
// of them from sending the same delivery.
import type { Deps } from '../services/deps.js';
import { parseRetryAfter } from '../domain/webhook-retry.js';
import type { Attempt } from '../services/outbox/queue.js';
import { type ClaimedDelivery, webhookQueue } from '../services/webhooks/webhook-queue.js';
import { signStandardWebhook, signWebhookPayload } from '../webhook-signature.js';
import { DEFAULT_CONCURRENCY, dispatchPass, type PassReport } from '../services/outbox/dispatch-pass.js';
import { runPasses } from './outbox-worker.js';
import { USER_AGENT, postWebhook, type PostRequest, type PostResult } from '../net/post-webhook.js';

export interface DispatchOptions {
  /** Deliveries in flight at once (and claimed per pass). */
  concurrency?: number;
  /** Random numbers for retry jitter (tests pin it). */
  random?: () => number;
  /** The HTTP call (tests may wrap it to watch); postWebhook by default. */
  post?: (request: PostRequest) => Promise<PostResult>;
}

export type DispatchReport = PassReport;

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
function headersOrRefusal(
  delivery: ClaimedDelivery,
  nowMs: number,
): { headers: Record<string, string> } | { refused: PostResult } {
  try {
    return { headers: buildHeaders(delivery, nowMs) };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return {
      refused: {
        statusCode: null,
        responseBody: null,
        retryAfter: null,
        error: `not sent: cannot sign with the endpoint's secret (${reason})`,
        durationMs: 0,
      },
    };
  }
}

async function deliver(deps: Deps, delivery: ClaimedDelivery, options: DispatchOptions): Promise<Attempt> {
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
  const ok =
    result.error === null && result.statusCode !== null && result.statusCode >= 200 && result.statusCode <= 299;
  // A receiver's Retry-After counts from when its answer came.
  return {
    ...result,
    result: ok ? 'succeeded' : 'failed',
    attemptedAt,
    retryAfterMs: parseRetryAfter(result.retryAfter, deps.now()),
  };
}

/** One pass: claims what is due (up to the concurrency) and sends it all. Tests drive time with it. */
export async function dispatchDueDeliveries(deps: Deps, options: DispatchOptions = {}): Promise<DispatchReport> {
  return dispatchPass(deps, webhookQueue, (delivery) => deliver(deps, delivery, options), webhookLog, options);
}

const webhookLog = {
  noun: 'webhook',
  fields: (delivery: ClaimedDelivery, attempt: Attempt | null) => ({
    delivery: delivery.id,
    ...(attempt && {
      event: delivery.eventId,
      endpoint: delivery.endpointId,
      status: attempt.statusCode,
      error: attempt.error,
    }),
  }),
};

/** Runs passes every WEBHOOK_DISPATCH_INTERVAL_MS (outbox-worker.ts, runPasses). */
export function startWebhookDispatcher(
  deps: Deps,
  options: DispatchOptions & { intervalMs?: number } = {},
): { stop(): Promise<void> } {
  const intervalMs = options.intervalMs ?? deps.config.webhookDispatchIntervalMs;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  // A line per pass at debug level: a test of another process counts passes in its log rather than waiting.
  const pass = async () => {
    const report = await dispatchDueDeliveries(deps, { ...options, concurrency });
    deps.logger.debug({ claimed: report.claimed }, 'webhook dispatch pass');
    return report;
  };
  return runPasses(deps, intervalMs, concurrency, pass, 'webhook dispatch failed');
}
