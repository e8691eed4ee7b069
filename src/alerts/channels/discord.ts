import { discordContent } from '../../presentation/notify-messages.js';
import { jsonObjectBody } from '../telegram-bot.js';
import { type AlertSender, blank, postJson, retryAfterOf } from './common.js';

/** Discord's execute-webhook: 204 (or 200 with ?wait=true) is a success; a 429 says how long to wait (`retry_after`, seconds). */
export const sendDiscord: AlertSender = async (context, alert, facts) => {
  const url = alert.secret ?? '';
  const result = await postJson(context, url, { content: discordContent(facts, alert.language) });
  const base = { statusCode: result.statusCode, durationMs: result.durationMs, retryAfterMs: null };
  if (result.error !== null) return { ...base, result: 'failed', error: blank(result.error, url) };
  const status = result.statusCode ?? 0;
  if (status >= 200 && status <= 299) return { ...base, result: 'succeeded', error: null };
  const answer = jsonObjectBody(result.responseBody);
  const message = typeof answer?.message === 'string' ? answer.message : `HTTP ${status}`;
  return {
    ...base,
    result: 'failed',
    error: blank(`Discord: ${message.slice(0, 300)}`, url),
    retryAfterMs: status === 429 ? retryAfterOf(answer?.retry_after, result.retryAfter, context.deps.now()) : null,
  };
};
