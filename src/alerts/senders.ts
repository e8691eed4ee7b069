// How an alert reaches each kind of channel: Telegram's sendMessage, Discord's execute-webhook, and
// e-mail to the merchant's users. The HTTP ones go through postWebhook: the same SSRF guard
// (WEBHOOK_ALLOW_NETWORKS), no redirects, one timer. A secret (the bot token, the Discord URL) is never
// put in what is recorded or logged: failures are described from the answer, and any text that could
// carry the secret has it blanked.
import { readAlertFacts, type AlertFacts } from '../domain/notify-facts.js';
import { parseRetryAfter } from '../domain/retry-after.js';
import { NOTIFY_MAX_RETRY_AFTER_MS } from '../domain/notify-retry.js';
import { PermanentMailError, type MailSender } from '../mail/sender.js';
import { alertEmail, discordContent, telegramText } from '../presentation/notify-messages.js';
import type { Deps } from '../services/deps.js';
import type { ClaimedAlert } from '../services/notify/claim-alerts.js';
import { ownerEmails } from '../services/notify/owner-emails.js';
import type { AlertAttemptOutcome } from '../services/notify/record-alert-attempt.js';
import { USER_AGENT, type PostRequest, type PostResult } from '../net/post-webhook.js';
import { jsonObjectBody, telegramProblem } from './telegram-bot.js';

export type Outcome = Omit<AlertAttemptOutcome, 'attemptedAt'>;
export type Post = (request: PostRequest) => Promise<PostResult>;

export interface SendContext {
  deps: Deps;
  post: Post;
  /** Null when SMTP_URL is not set: e-mail alerts then fail with that reason. */
  mail: MailSender | null;
}

const failed = (error: string, extra: Partial<Outcome> = {}): Outcome => ({
  ok: false,
  statusCode: null,
  error,
  retryAfterMs: null,
  durationMs: 0,
  ...extra,
});

/** Sends one claimed alert on its channel; never throws (every outcome is an attempt to record). */
export async function sendAlert(context: SendContext, alert: ClaimedAlert): Promise<Outcome> {
  const facts = readAlertFacts(alert.facts);
  if (facts === null) return failed('the alert cannot be read', { permanent: true });
  try {
    if (alert.type === 'telegram') return await sendTelegram(context, alert, facts);
    if (alert.type === 'discord') return await sendDiscord(context, alert, facts);
    return await sendEmail(context, alert, facts);
  } catch (err) {
    return failed(blank(err instanceof Error ? err.message : String(err), alert.secret));
  }
}

/** `text` with every occurrence of the secret (and of a bot token's secret half) blanked. */
function blank(text: string, secret: string | null): string {
  if (secret === null || secret === '') return text;
  let out = text.split(secret).join('••••');
  const half = secret.split(':')[1];
  if (half && half.length >= 8) out = out.split(half).join('••••');
  return out;
}

/** A service's wait in seconds (a number in its JSON answer), or its Retry-After header, as milliseconds. */
function retryAfterOf(seconds: unknown, header: string | null, now: number): number | null {
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0) return Math.min(Math.ceil(seconds * 1000), NOTIFY_MAX_RETRY_AFTER_MS);
  return parseRetryAfter(header, now, NOTIFY_MAX_RETRY_AFTER_MS);
}

function request(context: SendContext, url: string, body: unknown): Promise<PostResult> {
  return context.post({
    url,
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', 'User-Agent': USER_AGENT },
    timeoutMs: context.deps.config.webhookTimeoutMs,
    allow: context.deps.config.webhookAllowNetworks,
  });
}

/**
 * Telegram's sendMessage (https://core.telegram.org/bots/api#sendmessage): a 2xx answer whose JSON says
 * `"ok": true` is a success; `"ok": false` or any other status is a failure, described by Telegram's
 * `description`, and a 429's `parameters.retry_after` is the least we wait.
 */
async function sendTelegram(context: SendContext, alert: ClaimedAlert, facts: AlertFacts): Promise<Outcome> {
  const token = alert.secret ?? '';
  const url = `${context.deps.config.telegramApiUrl}/bot${token}/sendMessage`;
  const result = await request(context, url, { chat_id: alert.chatId, text: telegramText(facts, alert.language) });
  const base = { statusCode: result.statusCode, durationMs: result.durationMs, retryAfterMs: null };
  if (result.error !== null) return { ...base, ok: false, error: telegramProblem(context.deps.config.telegramApiUrl, result, token) };
  const answer = jsonObjectBody(result.responseBody);
  // A long success answer (it echoes the message) is cut at the kept length; its start still says ok.
  const saysOk = answer?.ok === true || (answer === null && /^\s*\{\s*"ok"\s*:\s*true\b/.test(result.responseBody ?? ''));
  const status = result.statusCode ?? 0;
  if (status >= 200 && status <= 299 && saysOk) return { ...base, ok: true, error: null };
  const parameters = (answer?.parameters ?? {}) as { retry_after?: unknown };
  return {
    ...base,
    ok: false,
    error: telegramProblem(context.deps.config.telegramApiUrl, result, token),
    retryAfterMs: status === 429 || answer?.ok === false ? retryAfterOf(parameters.retry_after, result.retryAfter, context.deps.now()) : null,
  };
}

/** Discord's execute-webhook: 204 (or 200 with ?wait=true) is a success; a 429 says how long to wait (`retry_after`, seconds). */
async function sendDiscord(context: SendContext, alert: ClaimedAlert, facts: AlertFacts): Promise<Outcome> {
  const url = alert.secret ?? '';
  const result = await request(context, url, { content: discordContent(facts, alert.language) });
  const base = { statusCode: result.statusCode, durationMs: result.durationMs, retryAfterMs: null };
  if (result.error !== null) return { ...base, ok: false, error: blank(result.error, url) };
  const status = result.statusCode ?? 0;
  if (status >= 200 && status <= 299) return { ...base, ok: true, error: null };
  const answer = jsonObjectBody(result.responseBody);
  const message = typeof answer?.message === 'string' ? answer.message : `HTTP ${status}`;
  return {
    ...base,
    ok: false,
    error: blank(`Discord: ${message.slice(0, 300)}`, url),
    retryAfterMs: status === 429 ? retryAfterOf(answer?.retry_after, result.retryAfter, context.deps.now()) : null,
  };
}

/** One e-mail to each of the merchant's users (each sees only its own address). */
async function sendEmail(context: SendContext, alert: ClaimedAlert, facts: AlertFacts): Promise<Outcome> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  if (context.mail === null) return failed('e-mail is not set up (SMTP_URL)', { permanent: true });
  const recipients = await ownerEmails(context.deps, alert.merchantId);
  if (recipients.length === 0) return failed('the merchant has no console users to e-mail', { permanent: true });
  const mail = alertEmail(facts, alert.language);
  const refused: string[] = [];
  for (const [i, to] of recipients.entries()) {
    try {
      // Stable per alert and recipient, so a copy a retry sends after an unseen success can be dropped.
      await context.mail.send({ messageId: `${alert.id}.${i}`, to, ...mail, attachments: [] });
    } catch (err) {
      if (!(err instanceof PermanentMailError)) throw err;
      refused.push(to);
    }
  }
  if (refused.length === recipients.length) return failed(`every recipient was refused: ${refused.join(', ')}`, { permanent: true, durationMs: took() });
  return { ok: true, statusCode: null, error: refused.length === 0 ? null : `refused: ${refused.join(', ')}`, retryAfterMs: null, durationMs: took() };
}
