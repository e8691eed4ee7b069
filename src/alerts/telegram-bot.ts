// Talking to a merchant's Telegram bot beyond sendMessage: getMe (the bot's username, for the link the
// owner opens) and getUpdates (the chat in which the owner pressed Start on that link), and what every
// failure of the Bot API means in plain words. Requests go through postWebhook, so the SSRF guard
// (WEBHOOK_ALLOW_NETWORKS), the timeout and the no-redirect rule are the alerts' own.
import type { Deps } from '../services/deps.js';
import { USER_AGENT, type PostRequest, type PostResult } from '../net/post-webhook.js';
import { telegramProblemText, type TelegramProblem } from '../presentation/telegram-problems.js';

export type Post = (request: PostRequest) => Promise<PostResult>;

/** A Telegram deep link's start parameter: at most 64 of A-Z, a-z, 0-9, _ and -. */
export const START_NONCE = /^[A-Za-z0-9_-]{16,64}$/;

export type BotAnswer<T> = { ok: true; value: T } | { ok: false; error: string };

/** A chat service's answer body as a JSON object, or null (none, not JSON, or not an object). */
export function jsonObjectBody(body: string | null): Record<string, unknown> | null {
  if (body === null) return null;
  try {
    const parsed = JSON.parse(body) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** `text` with the bot token (and its secret half) blanked. */
function blankToken(text: string, token: string): string {
  if (token === '') return text;
  let out = text.split(token).join('••••');
  const half = token.split(':')[1];
  if (half && half.length >= 8) out = out.split(half).join('••••');
  return out;
}

/**
 * What went wrong with a call of the Bot API, said so the owner can act on it: the network (the host
 * could not be found, refused, did not answer) or Telegram's answer (the token, the chat, the bot's
 * place in it, a webhook that keeps getUpdates from working, a rate limit). Anything else is Telegram's
 * own description. Never carries the token.
 */
export function telegramProblem(apiUrl: string, result: PostResult, token: string): string {
  return telegramProblemText(describeTelegramProblem(apiUrl, result, token), 'en');
}

function describeTelegramProblem(apiUrl: string, result: PostResult, token: string): TelegramProblem {
  const host = (() => {
    try {
      return new URL(apiUrl).host;
    } catch {
      return apiUrl;
    }
  })();
  if (result.error !== null) {
    const e = result.error;
    if (/ENOTFOUND|EAI_AGAIN|EAI_NONAME/.test(e)) return { code: 'dns', vars: { host } };
    if (/ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH/.test(e)) return { code: 'connect', vars: { host } };
    if (/timed out/.test(e)) return { code: 'timeout', vars: { host } };
    if (/not allowed|private|refus/i.test(e)) return { code: 'guard', vars: { host, detail: blankToken(e, token) } };
    return { code: 'unreachable', vars: { host, detail: blankToken(e, token) } };
  }
  const status = result.statusCode ?? 0;
  const answer = jsonObjectBody(result.responseBody);
  const description = typeof answer?.description === 'string' ? answer.description : '';
  const code = typeof answer?.error_code === 'number' ? answer.error_code : status;
  if (code === 401 || code === 404) return { code: 'token' };
  if (code === 400 && /chat not found/i.test(description)) return { code: 'chat' };
  if (code === 403 && /blocked/i.test(description)) return { code: 'blocked' };
  if (code === 403 && /kicked|not a member/i.test(description)) return { code: 'kicked' };
  if (code === 403) return { code: 'forbidden', vars: { detail: description.slice(0, 200) || 'Forbidden' } };
  if (code === 409) return { code: 'webhook' };
  if (code === 429) {
    const parameters = (answer?.parameters ?? {}) as { retry_after?: unknown };
    return typeof parameters.retry_after === 'number'
      ? { code: 'wait', vars: { seconds: parameters.retry_after } }
      : { code: 'waitAWhile' };
  }
  return {
    code: 'other',
    vars: {
      detail: blankToken((description || (answer?.ok === false ? 'ok: false' : `HTTP ${status}`)).slice(0, 300), token),
    },
  };
}

/** Enough for getUpdates' 100 updates. */
const BOT_ANSWER_LIMIT = 512 * 1024;

function call(deps: Deps, post: Post, token: string, method: string, body: unknown): Promise<PostResult> {
  return post({
    bodyLimit: BOT_ANSWER_LIMIT,
    url: `${deps.config.telegramApiUrl}/bot${token}/${method}`,
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', 'User-Agent': USER_AGENT },
    timeoutMs: deps.config.webhookTimeoutMs,
    allow: deps.config.webhookAllowNetworks,
  });
}

async function result(
  deps: Deps,
  post: Post,
  token: string,
  method: string,
  body: unknown,
): Promise<BotAnswer<unknown>> {
  if (!/^[0-9]{1,20}:[A-Za-z0-9_-]{20,100}$/.test(token))
    return { ok: false, error: telegramProblemText({ code: 'token' }, 'en') };
  const answer = await call(deps, post, token, method, body);
  const parsed = answer.error === null ? jsonObjectBody(answer.responseBody) : null;
  const status = answer.statusCode ?? 0;
  if (status >= 200 && status <= 299 && parsed?.ok === true) return { ok: true, value: parsed.result };
  return { ok: false, error: telegramProblem(deps.config.telegramApiUrl, answer, token) };
}

/** The bot's username (getMe), for the link https://t.me/<username>?start=<nonce>. */
export async function telegramBotName(deps: Deps, post: Post, token: string): Promise<BotAnswer<string>> {
  const answer = await result(deps, post, token, 'getMe', {});
  if (!answer.ok) return answer;
  const username = (answer.value as { username?: unknown } | null)?.username;
  if (typeof username !== 'string' || !/^[A-Za-z0-9_]{3,64}$/.test(username))
    return { ok: false, error: telegramProblemText({ code: 'username' }, 'en') };
  return { ok: true, value: username };
}

/**
 * The chat in which someone sent `/start <nonce>` to the bot (what Telegram sends when Start is pressed
 * on the link), among the updates Telegram keeps for it (getUpdates, read without confirming any, so
 * nothing else reading them loses one); null while there is none.
 */
export async function findStartChat(
  deps: Deps,
  post: Post,
  token: string,
  nonce: string,
): Promise<BotAnswer<string | null>> {
  const answer = await result(deps, post, token, 'getUpdates', {
    allowed_updates: ['message'],
    timeout: 0,
    limit: 100,
  });
  if (!answer.ok) return answer;
  const updates = Array.isArray(answer.value) ? answer.value : [];
  const wanted = new RegExp(`^/start(@[A-Za-z0-9_]+)?\\s+${nonce}\\s*$`);
  for (const update of updates.slice().reverse()) {
    const message = (update as { message?: { text?: unknown; chat?: { id?: unknown } } } | null)?.message;
    const id = message?.chat?.id;
    if (
      typeof message?.text === 'string' &&
      wanted.test(message.text) &&
      (typeof id === 'number' || typeof id === 'string')
    ) {
      return { ok: true, value: String(id) };
    }
  }
  return { ok: true, value: null };
}
