// /dashboard/notifications: a viewer's alert channels (Telegram, Discord, e-mail), adding one of each
// type with a short how-to, and a channel's page with "Send test", "Remove" and its alerts with every
// attempt. The work is done by the services the CLI's `notify` commands use, which check what was typed
// (the private-address guard for a Discord URL) and audit. Secrets are only ever shown masked.
// Telegram is connected without reading JSON: the bot token gives the bot's link (getMe), the owner
// presses Start on it, and the page finds the chat (getUpdates, one look per press of Find the chat or
// per poll of console.js, every 2 s for at most 2 minutes), then adds the channel. Every call of the Bot
// API a page makes (Connect's getMe, each Find's getUpdates) is counted, per user and per merchant, so a
// logged-in user cannot make the gateway hammer api.telegram.org: TELEGRAM_LOOKUPS_PER_MINUTE each.
import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { html, type SafeHtml } from '../../../domain/html.js';
import { maskSecret, type NotifyChannelType } from '../../../domain/notify-channel.js';
import { canSeeMerchant, type Viewer } from '../../../domain/viewer.js';
import { formatTime } from '../../../presentation/format.js';
import { translator, type Translate } from '../../../presentation/messages.js';
import { inLanguage } from '../../../presentation/telegram-problems.js';
import type { Deps } from '../../../services/deps.js';
import { listVisibleMerchants } from '../../../services/merchants/list-visible-merchants.js';
import { addNotifyChannel } from '../../../services/notify/add-notify-channel.js';
import { deliveryLog } from '../../../services/outbox/delivery-log.js';
import { channelLog } from '../../../services/notify/channel-log.js';
import { renderDeliveryLog } from '../delivery-log-view.js';
import { getVisibleChannel } from '../../../services/notify/get-visible-channel.js';
import { listVisibleChannels } from '../../../services/notify/list-visible-channels.js';
import { queueTestAlert } from '../../../services/notify/queue-test-alert.js';
import { removeNotifyChannel } from '../../../services/notify/remove-notify-channel.js';
import type { NotifyChannelsTable } from '../../../storage/schema.js';
import { dispatchAlertNow } from '../../../alerts/dispatch.js';
import { postWebhook } from '../../../net/post-webhook.js';
import { findStartChat, START_NONCE, telegramBotName } from '../../../alerts/telegram-bot.js';
import { MemoryRateLimiter } from '../../../http/rate-limit.js';
import { Form, Params, Query, Segment, Text, pageSchema } from '../../forms.js';
import { consolePage, type ConsoleKit, type ConsolePage } from '../context.js';
import { leaveNotice, redirectWithNotice, renderNotice, takeNotice, type Notice } from '../notice.js';
import { words } from './notifications.words.js';

type Word = keyof (typeof words)['en'];
type T = Translate<Word>;

const channelParams = Params({ id: Segment() });
const LIST = '/dashboard/notifications';

/**
 * How many calls of the Bot API the connect pages may make per minute for one user, and for one merchant
 * (whoever asks): console.js's look every 2 s is 30 a minute, so one owner's search, with a few presses
 * of Find the chat, stays under it, and nobody can make this gateway call Telegram faster. Counted in this
 * process's memory: each instance counts its own, which bounds each instance's calls just the same.
 */
export const TELEGRAM_LOOKUPS_PER_MINUTE = 40;

export async function notificationRoutes(scope: FastifyInstance, deps: Deps, kit: ConsoleKit): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/notifications', { schema: pageSchema({}) }, async (request, reply) =>
    listPage(deps, consolePage(request, reply), takeNotice(request, reply)),
  );

  const addForm = Form({
    merchant: Text(),
    type: Text(),
    language: Text(),
    bot_token: Text(),
    chat_id: Text(),
    url: Text(2048),
  });
  app.post('/notifications', { schema: pageSchema({ body: addForm }) }, async (request, reply) => {
    const viewer = request.viewer!;
    const t = translator(words, request.consoleLang);
    const refuse = (text: string) => redirectWithNotice(reply, LIST, { kind: 'error', text });
    const merchantId = request.body.merchant ?? '';
    if (merchantId === '') return refuse(t('merchantRequired'));
    // Another merchant's id is answered as an unknown one: the 404 page.
    if (!canSeeMerchant(viewer, merchantId)) throw new AppError('merchant_not_found', 'no such merchant');
    const { type, language, bot_token: botToken, chat_id: chatId, url } = request.body;
    let created: Awaited<ReturnType<typeof addNotifyChannel>>;
    try {
      created = await addNotifyChannel(deps, {
        merchantId,
        ...(type !== undefined ? { type } : {}),
        ...(language !== undefined ? { language } : {}),
        ...(botToken !== undefined ? { botToken } : {}),
        ...(chatId !== undefined ? { chatId } : {}),
        ...(url !== undefined ? { url } : {}),
        actor: viewer.actor,
      });
    } catch (err) {
      if (err instanceof AppError && err.code === 'invalid_parameter')
        return refuse(t('invalid', { detail: err.message }));
      throw err;
    }
    return redirectWithNotice(reply, `${LIST}/${created.id}`, { kind: 'success', text: t('added') });
  });

  // Made per registration, so two gateways in one process share nothing (no-shared-state.test.ts).
  const lookups = new MemoryRateLimiter(TELEGRAM_LOOKUPS_PER_MINUTE, deps.now);
  /** Counts one call of the Bot API for this user and this merchant; false when either is over the bound. */
  const mayAskTelegram = async (viewer: Viewer, merchantId: string): Promise<boolean> => {
    const [user, merchant] = await Promise.all([
      lookups.hit(`user:${viewer.userId}`),
      lookups.hit(`merchant:${merchantId}`),
    ]);
    return user.allowed && merchant.allowed;
  };

  const connectForm = Form({ merchant: Text(), type: Text(), language: Text(), bot_token: Text() });
  app.post('/notifications/telegram/connect', { schema: pageSchema({ body: connectForm }) }, async (request, reply) => {
    const t = translator(words, request.consoleLang);
    const merchantId = request.body.merchant ?? '';
    if (merchantId === '') return redirectWithNotice(reply, LIST, { kind: 'error', text: t('merchantRequired') });
    if (!canSeeMerchant(request.viewer!, merchantId)) throw new AppError('merchant_not_found', 'no such merchant');
    const token = (request.body.bot_token ?? '').trim();
    if (!(await mayAskTelegram(request.viewer!, merchantId)))
      return redirectWithNotice(reply, LIST, { kind: 'error', text: t('tooManyLookups') });
    const bot = await telegramBotName(deps, postWebhook, token);
    if (!bot.ok)
      return redirectWithNotice(reply, LIST, {
        kind: 'error',
        text: t('telegramFailed', { detail: inLanguage(bot.error, request.consoleLang) }),
      });
    const search: ChatSearch = {
      merchantId,
      language: request.body.language ?? 'id',
      token,
      bot: bot.value,
      nonce: randomBytes(18).toString('base64url'),
    };
    return connectPage(consolePage(request, reply), search, null);
  });

  const findForm = Form({ merchant: Text(), language: Text(), bot_token: Text(), bot: Text(), nonce: Text() });
  app.post('/notifications/telegram/find', { schema: pageSchema({ body: findForm }) }, async (request, reply) => {
    const viewer = request.viewer!;
    const t = translator(words, request.consoleLang);
    const { merchant: merchantId = '', language = 'id', bot_token: token = '', bot = '', nonce = '' } = request.body;
    if (!canSeeMerchant(viewer, merchantId)) throw new AppError('merchant_not_found', 'no such merchant');
    if (!START_NONCE.test(nonce) || !/^[A-Za-z0-9_]{3,64}$/.test(bot))
      return redirectWithNotice(reply, LIST, { kind: 'error', text: t('notYet') });
    const search: ChatSearch = { merchantId, language, token, bot, nonce };
    if (!(await mayAskTelegram(viewer, merchantId))) {
      // Not "waiting": console.js stops looking and sends the form the ordinary way, which shows this.
      reply.header('X-Chat-Search', 'limited');
      return connectPage(consolePage(request, reply), search, { kind: 'error', text: t('tooManyLookups') }, 429);
    }
    const found = await findStartChat(deps, postWebhook, token, nonce);
    if (!found.ok) {
      reply.header('X-Chat-Search', 'failed');
      return connectPage(consolePage(request, reply), search, {
        kind: 'error',
        text: t('telegramFailed', { detail: inLanguage(found.error, request.consoleLang) }),
      });
    }
    if (found.value === null) {
      reply.header('X-Chat-Search', 'waiting');
      return connectPage(consolePage(request, reply), search, { kind: 'info', text: t('notYet') });
    }
    let created: Awaited<ReturnType<typeof addNotifyChannel>>;
    try {
      created = await addNotifyChannel(deps, {
        merchantId,
        type: 'telegram',
        language,
        botToken: token,
        chatId: found.value,
        actor: viewer.actor,
      });
    } catch (err) {
      if (err instanceof AppError && err.code === 'invalid_parameter')
        return redirectWithNotice(reply, LIST, { kind: 'error', text: t('invalid', { detail: err.message }) });
      throw err;
    }
    const location = `${LIST}/${created.id}`;
    const notice: Notice = { kind: 'success', text: t('connected') };
    // console.js's background look is told where to go (a redirect it followed would read the notice itself).
    if (request.headers['x-chat-search'] === 'poll') {
      leaveNotice(reply, notice);
      return reply.header('X-Chat-Search', 'found').type('text/plain; charset=utf-8').send(location);
    }
    return redirectWithNotice(reply, location, notice);
  });

  app.post(
    '/notifications/:id/test',
    { schema: pageSchema({ params: channelParams, body: Form({}) }) },
    async (request, reply) => {
      const t = translator(words, request.consoleLang);
      const channel = await getVisibleChannel(deps, request.viewer!, request.params.id);
      const back = `${LIST}/${channel.id}`;
      if (channel.status !== 'active')
        return redirectWithNotice(reply, back, { kind: 'error', text: t('invalid', { detail: t('disabled') }) });
      const alert = await queueTestAlert(deps, channel);
      // Sent at once, so the person who pressed the button sees the answer; the dispatcher retries a failure.
      const sent = await dispatchAlertNow(deps, alert, { mail: kit.mail });
      const notice: Notice =
        sent === null
          ? { kind: 'info', text: t('testQueued') }
          : sent.state === 'succeeded'
            ? { kind: 'success', text: t('testSent') }
            : {
                kind: 'error',
                text: t('testFailed', {
                  detail:
                    sent.error !== null
                      ? inLanguage(sent.error, request.consoleLang)
                      : sent.statusCode === null
                        ? t('noResponse')
                        : t('statusCode', { code: sent.statusCode }),
                }),
              };
      return redirectWithNotice(reply, back, notice);
    },
  );

  app.post(
    '/notifications/:id/remove',
    { schema: pageSchema({ params: channelParams, body: Form({}) }) },
    async (request, reply) => {
      const viewer = request.viewer!;
      const t = translator(words, request.consoleLang);
      const channel = await getVisibleChannel(deps, viewer, request.params.id);
      const removed = await removeNotifyChannel(deps, channel.id, viewer.actor);
      return redirectWithNotice(reply, LIST, {
        kind: 'success',
        text: t('removed', { count: removed.cancelled_deliveries }),
      });
    },
  );

  app.get(
    '/notifications/:id',
    { schema: pageSchema({ params: channelParams, querystring: Query({ before: Text() }) }) },
    async (request, reply) => detailPage(deps, request, reply, request.params.id, request.query.before ?? null),
  );
}

/** A search for the chat in which the owner pressed Start on the bot's link, carried by the page's form. */
interface ChatSearch {
  merchantId: string;
  language: string;
  token: string;
  bot: string;
  nonce: string;
}

/**
 * The answer of a Connect or a Find the chat that found nothing yet: the bot's links and the form that
 * looks again (console.js sends it every 2 s for 2 minutes). The token rides in a hidden field, as it was
 * typed, and that is deliberate: it goes back only to the logged-in user who typed it, in the POST's own
 * answer (Cache-Control: no-store, never stored, never in a URL or a log line), and comes back only in a
 * CSRF-checked POST of that session; keeping it server-side until the chat is found would be a store of
 * unconfirmed bot tokens, and a new place for a secret to outlive the search.
 */
function connectPage(page: ConsolePage, search: ChatSearch, notice: Notice | null, status = 200): FastifyReply {
  const t = translator(words, page.lang);
  const bot = { bot: search.bot };
  const body = html`<p><a href="${LIST}">${t('back')}</a></p>
<h1>${t('connectTitle', bot)}</h1>
${renderNotice(notice)}
<section class="card">
<p>${t('connectStep1')}</p>
<p><a class="button" href="https://t.me/${search.bot}?start=${search.nonce}" target="_blank" rel="noopener noreferrer">${t('openPrivate', bot)}</a></p>
<p class="muted">${t('connectGroup')} <a href="https://t.me/${search.bot}?startgroup=${search.nonce}" target="_blank" rel="noopener noreferrer">${t('openGroup', bot)}</a></p>
<p>${t('connectStep2')}</p>
<form method="post" action="${LIST}/telegram/find" data-chat-search data-searching="${t('searching')}" data-gave-up="${t('gaveUp')}">
<input type="hidden" name="_csrf" value="${page.csrf}">
<input type="hidden" name="merchant" value="${search.merchantId}">
<input type="hidden" name="language" value="${search.language}">
<input type="hidden" name="bot_token" value="${search.token}">
<input type="hidden" name="bot" value="${search.bot}">
<input type="hidden" name="nonce" value="${search.nonce}">
<button type="submit">${t('findChat')}</button>
<p class="muted" role="status" aria-live="polite" data-chat-search-status></p>
</form>
</section>`;
  return page.send(t('connectTitle', bot), 'notifications', body, status);
}

function typeWord(t: T, type: NotifyChannelType): string {
  return t(type);
}

function targetText(t: T, c: NotifyChannelsTable): string {
  if (c.type === 'email') return t('owners');
  const masked = maskSecret(c.type, c.secret);
  return c.type === 'telegram' && c.chat_id !== null ? `${masked} · ${t('chat', { chat: c.chat_id })}` : masked;
}

async function listPage(deps: Deps, page: ConsolePage, notice: Notice | null): Promise<FastifyReply> {
  const t = translator(words, page.lang);
  const [channels, merchants] = await Promise.all([
    listVisibleChannels(deps, page.viewer),
    listVisibleMerchants(deps, page.viewer),
  ]);
  const names = new Map(merchants.map((m) => [m.id, m.name]));
  const body = html`<h1>${t('title')}</h1>
${renderNotice(notice)}
<p class="muted">${t('intro')}</p>
<h2>${t('channels')}</h2>
${
  channels.length === 0
    ? html`<p class="card muted">${t('none')}</p>`
    : html`<div class="table-wrap spaced"><table>
<thead><tr><th>${t('type')}</th><th>${t('target')}</th><th>${t('language')}</th><th>${t('merchant')}</th><th><span class="visually-hidden">${t('open')}</span></th></tr></thead>
<tbody>${channels.map(
        (
          c,
        ) => html`<tr><td data-label="${t('type')}">${typeWord(t, c.type)}</td><td class="mono" data-label="${t('target')}">${targetText(t, c)}</td>
<td data-label="${t('language')}">${c.language === 'id' ? t('langId') : t('langEn')}</td><td data-label="${t('merchant')}">${names.get(c.merchant_id) ?? c.merchant_id}</td>
<td data-label=""><a href="${LIST}/${c.id}" aria-label="${t('open')} ${typeWord(t, c.type)} ${targetText(t, c)}">${t('open')}</a></td></tr>`,
      )}</tbody></table></div>`
}
${merchants.length === 0 ? '' : addForms(t, page.csrf, merchants)}`;
  return page.send(t('title'), 'notifications', body);
}

function addForms(t: T, csrf: string, merchants: ReadonlyArray<{ id: string; name: string }>): SafeHtml {
  const common = (
    type: NotifyChannelType,
    form: string = type,
  ) => html`<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="type" value="${type}">
<label for="${form}-merchant">${t('merchant')}</label>
<select id="${form}-merchant" name="merchant" required>
${merchants.length === 1 ? '' : html`<option value="">${t('chooseMerchant')}</option>`}
${merchants.map((m) => html`<option value="${m.id}">${m.name} (${m.id})</option>`)}
</select>
<label for="${form}-language">${t('language')}</label>
<select id="${form}-language" name="language"><option value="id" selected>${t('langId')}</option><option value="en">${t('langEn')}</option></select>`;
  return html`<section class="card" aria-labelledby="add-telegram-title">
<h2 id="add-telegram-title">${t('connectTelegram')}</h2>
<p class="muted">${t('connectHow')}</p>
<form method="post" action="${LIST}/telegram/connect">
${common('telegram', 'connect')}
<label for="connect-token">${t('botToken')}</label>
<input id="connect-token" name="bot_token" type="password" required maxlength="200" autocomplete="off" aria-describedby="connect-token-hint">
<p class="muted" id="connect-token-hint">${t('secretHint')}</p>
<button type="submit">${t('connect')}</button>
</form>
<details>
<summary>${t('manualTelegram')}</summary>
<p class="muted">${howTo(t('telegramHow'), 'https://api.telegram.org/bot<token>/getUpdates')}</p>
<form method="post" action="${LIST}">
${common('telegram')}
<label for="telegram-token">${t('botToken')}</label>
<input id="telegram-token" name="bot_token" type="password" required maxlength="200" autocomplete="off" aria-describedby="telegram-token-hint">
<p class="muted" id="telegram-token-hint">${t('secretHint')}</p>
<label for="telegram-chat">${t('chatId')}</label>
<input id="telegram-chat" name="chat_id" required maxlength="40" autocomplete="off" inputmode="text">
<button type="submit">${t('addTelegram')}</button>
</form>
</details>
</section>
<section class="card" aria-labelledby="add-discord-title">
<h2 id="add-discord-title">${t('addDiscord')}</h2>
<p class="muted">${t('discordHow')}</p>
<form method="post" action="${LIST}">
${common('discord')}
<label for="discord-url">${t('discordUrl')}</label>
<input id="discord-url" name="url" type="url" required maxlength="2048" placeholder="https://discord.com/api/webhooks/..." autocomplete="off" aria-describedby="discord-url-hint">
<p class="muted" id="discord-url-hint">${t('secretHint')}</p>
<button type="submit">${t('addDiscord')}</button>
</form>
</section>
<section class="card" aria-labelledby="add-email-title">
<h2 id="add-email-title">${t('addEmail')}</h2>
<p class="muted">${t('emailHow')}</p>
<form method="post" action="${LIST}">
${common('email')}
<button type="submit">${t('addEmail')}</button>
</form>
</section>`;
}

/** A how-to sentence with its address in monospace, which may break anywhere (a phone is narrower than it). */
function howTo(text: string, url: string): SafeHtml {
  const [before = '', after = ''] = text.split('{url}');
  return html`${before}<span class="mono">${url}</span>${after}`;
}

/** A channel's page: its alerts from `cursor` (older than it; null for the newest). */
async function detailPage(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  cursor: string | null,
): Promise<FastifyReply> {
  const page = consolePage(request, reply);
  const t = translator(words, page.lang);
  const channel = await getVisibleChannel(deps, page.viewer, id);
  const notice = takeNotice(request, reply);
  const [{ entries: alerts, next }, merchants] = await Promise.all([
    deliveryLog(deps, channelLog(channel.id), cursor),
    listVisibleMerchants(deps, page.viewer),
  ]);
  const merchant = merchants.find((m) => m.id === channel.merchant_id);
  const when = (ms: number) => formatTime(ms, page.lang);
  const self = `${LIST}/${channel.id}`;
  const heading = `${typeWord(t, channel.type)} · ${merchant?.name ?? channel.merchant_id}`;
  const body = html`<p><a href="${LIST}">${t('back')}</a></p>
<h1>${heading}</h1>
${renderNotice(notice)}
<div class="card">
<dl class="fields">
<dt>${t('target')}</dt><dd class="mono">${targetText(t, channel)}</dd>
<dt>${t('language')}</dt><dd>${channel.language === 'id' ? t('langId') : t('langEn')}</dd>
<dt>${t('status')}</dt><dd><span class="badge ${channel.status}">${t(channel.status)}</span></dd>
<dt>${t('merchant')}</dt><dd>${merchant?.name ?? channel.merchant_id}</dd>
<dt>${t('created')}</dt><dd>${when(channel.created_at)}</dd>
</dl>
${
  channel.status !== 'active'
    ? ''
    : html`<div class="actions">
<form method="post" action="${self}/test" class="inline"><input type="hidden" name="_csrf" value="${page.csrf}"><button type="submit" aria-describedby="test-hint">${t('sendTest')}</button></form>
<form method="post" action="${self}/remove" class="inline" data-confirm="${t('removeConfirm')}"><input type="hidden" name="_csrf" value="${page.csrf}"><button type="submit" class="danger">${t('remove')}</button></form>
</div>
<p class="muted" id="test-hint">${t('testHint')}</p>`
}
</div>
${renderDeliveryLog(alerts, {
  t,
  when,
  self,
  cursor,
  next,
  anchor: 'alert',
  heading: (d) => t(`kind_${d.kind}`),
  errorText: (error) => inLanguage(error, page.lang),
})}`;
  return page.send(heading, 'notifications', body);
}
