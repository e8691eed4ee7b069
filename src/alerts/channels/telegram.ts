import { telegramText } from '../../presentation/notify-messages.js';
import { jsonObjectBody, telegramProblem } from '../telegram-bot.js';
import { type AlertSender, postJson, retryAfterOf } from './common.js';

/**
 * Telegram's sendMessage (https://core.telegram.org/bots/api#sendmessage): a 2xx answer whose JSON says
 * `"ok": true` is a success; `"ok": false` or any other status is a failure, described by Telegram's
 * `description`, and a 429's `parameters.retry_after` is the least we wait.
 */
export const sendTelegram: AlertSender = async (context, alert, facts) => {
  const token = alert.secret ?? '';
  const url = `${context.deps.config.telegramApiUrl}/bot${token}/sendMessage`;
  const result = await postJson(context, url, { chat_id: alert.chatId, text: telegramText(facts, alert.language) });
  const base = { statusCode: result.statusCode, durationMs: result.durationMs, retryAfterMs: null };
  if (result.error !== null)
    return { ...base, result: 'failed', error: telegramProblem(context.deps.config.telegramApiUrl, result, token) };
  const answer = jsonObjectBody(result.responseBody);
  // A long success answer (it echoes the message) is cut at the kept length; its start still says ok.
  const saysOk =
    answer?.ok === true || (answer === null && /^\s*\{\s*"ok"\s*:\s*true\b/.test(result.responseBody ?? ''));
  const status = result.statusCode ?? 0;
  if (status >= 200 && status <= 299 && saysOk) return { ...base, result: 'succeeded', error: null };
  const parameters = (answer?.parameters ?? {}) as { retry_after?: unknown };
  return {
    ...base,
    result: 'failed',
    error: telegramProblem(context.deps.config.telegramApiUrl, result, token),
    retryAfterMs:
      status === 429 || answer?.ok === false
        ? retryAfterOf(parameters.retry_after, result.retryAfter, context.deps.now())
        : null,
  };
};
