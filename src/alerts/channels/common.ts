// What the senders of every alert channel type share. The HTTP ones go through postWebhook: the same
// SSRF guard (WEBHOOK_ALLOW_NETWORKS), no redirects, one timer. A secret (the bot token, the Discord
// URL) is never put in what is recorded or logged: failures are described from the answer, and any
// text that could carry the secret has it blanked.
import type { AlertFacts } from '../../domain/notify-facts.js';
import { NOTIFY_MAX_RETRY_AFTER_MS } from '../../domain/notify-retry.js';
import { parseRetryAfter } from '../../domain/retry-after.js';
import type { MailSender } from '../../mail/sender.js';
import type { Deps } from '../../services/deps.js';
import type { ClaimedAlert } from '../../services/notify/alert-queue.js';
import type { Attempt } from '../../services/outbox/queue.js';
import { USER_AGENT, type PostRequest, type PostResult } from '../../net/post-webhook.js';

export type Outcome = Omit<Attempt, 'attemptedAt'>;
export type Post = (request: PostRequest) => Promise<PostResult>;

export interface SendContext {
  deps: Deps;
  post: Post;
  /** Null when SMTP_URL is not set: e-mail alerts then fail with that reason. */
  mail: MailSender | null;
}

/** How one channel type sends an alert: every outcome it can describe is returned; a throw is blanked and recorded by the caller. */
export type AlertSender = (context: SendContext, alert: ClaimedAlert, facts: AlertFacts) => Promise<Outcome>;

export const failed = (error: string, extra: Partial<Outcome> = {}): Outcome => ({
  result: 'failed',
  statusCode: null,
  error,
  retryAfterMs: null,
  durationMs: 0,
  ...extra,
});

/** `text` with every occurrence of the secret (and of a bot token's secret half) blanked. */
export function blank(text: string, secret: string | null): string {
  if (secret === null || secret === '') return text;
  let out = text.split(secret).join('••••');
  const half = secret.split(':')[1];
  if (half && half.length >= 8) out = out.split(half).join('••••');
  return out;
}

/** A service's wait in seconds (a number in its JSON answer), or its Retry-After header, as milliseconds. */
export function retryAfterOf(seconds: unknown, header: string | null, now: number): number | null {
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0)
    return Math.min(Math.ceil(seconds * 1000), NOTIFY_MAX_RETRY_AFTER_MS);
  return parseRetryAfter(header, now, NOTIFY_MAX_RETRY_AFTER_MS);
}

export function postJson(context: SendContext, url: string, body: unknown): Promise<PostResult> {
  return context.post({
    url,
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', 'User-Agent': USER_AGENT },
    timeoutMs: context.deps.config.webhookTimeoutMs,
    allow: context.deps.config.webhookAllowNetworks,
  });
}
