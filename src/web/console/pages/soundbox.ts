// /dashboard/soundbox (issue 27, section 2): a page to leave open at the counter that says each payment
// of one merchant aloud, and its stream of payments, /dashboard/soundbox/events?merchant=ID.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { html } from '../../../domain/html.js';
import { canSeeMerchant } from '../../../domain/viewer.js';
import { translator } from '../../../presentation/messages.js';
import type { Deps } from '../../../services/deps.js';
import { listVisibleMerchants } from '../../../services/merchants/list-visible-merchants.js';
import { startPaidWatch } from '../../../services/soundbox/paid-watch.js';
import { startSessionWatch } from '../../../services/users/session-watch.js';
import { openPaymentFeed, type FeedOpening } from '../../../services/soundbox/open-payment-feed.js';
import { databaseReachable } from '../../../services/health/database-reachable.js';
import { pageSchema, Query, Text } from '../../forms.js';
import { soundboxAssets } from '../../static-assets.js';
import { StreamSlots } from '../../stream-slots.js';
import { consolePage } from '../context.js';
import { SoundboxFeed } from '../soundbox-feed.js';
import { SoundboxStream } from '../soundbox-stream.js';
import { words } from './soundbox.words.js';

/** Soundboxes one user may have open at once (a phone and a tablet, with room for a reload's overlap). */
export const SOUNDBOX_STREAMS_PER_USER = 5;
/** Soundboxes one merchant may have open at once, whoever opened them. */
const SOUNDBOX_STREAMS_PER_MERCHANT = 20;
/** A stream ends after this long and the page reconnects (an ended session ends it sooner: the session watch). */
const MAX_STREAM_AGE_MS = 30 * 60_000;
/** How long the page's EventSource waits before reconnecting by itself. */
const RETRY_MS = 2000;

const REFUSALS = {
  perAddress: (n: number) => `you already have ${n} soundboxes open; close one first`,
  perTransaction: (n: number) => `this merchant already has ${n} soundboxes open; close one first`,
  total: 'this server has as many soundboxes open as it allows; the page tries again shortly',
};

export async function soundboxRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { config } = deps;
  const watch = startPaidWatch(deps, config.statusWatchIntervalMs);
  // A stream lives no longer than its session (issue 35, finding 5).
  const sessions = startSessionWatch(deps, config.sessionCheckIntervalMs);
  const slots = new StreamSlots(
    {
      perAddress: SOUNDBOX_STREAMS_PER_USER,
      perTransaction: SOUNDBOX_STREAMS_PER_MERCHANT,
      total: config.checkoutStreamsTotal,
    },
    REFUSALS,
  );
  const open = new Map<SoundboxStream, SoundboxFeed>();
  // One timer for every stream: pings (which let the page see a dead stream), a new day's totals, the age
  // limit, and one database check for all of them (issue 37, section 5): a stream's pings go on while the
  // database is down, so without it a counter would say "Connected" while no payment can be recorded.
  let checking = false;
  const heartbeat = setInterval(() => {
    if (open.size === 0 || checking) return;
    checking = true;
    void databaseReachable(deps).then((reachable) => {
      checking = false;
      const now = deps.now();
      for (const [stream, feed] of open) {
        if (!reachable) feed.trouble();
        else if (now - stream.openedAt >= MAX_STREAM_AGE_MS) stream.close();
        else feed.tick(now);
      }
    });
  }, config.checkoutHeartbeatSeconds * 1000);
  heartbeat.unref();
  let closing = false;
  // Open streams end before the server closes, or a shutdown would wait for every counter to leave.
  scope.addHook('preClose', async () => {
    closing = true;
    clearInterval(heartbeat);
    for (const stream of [...open.keys()]) stream.close();
  });
  scope.addHook('onClose', async () => {
    watch.stop();
    sessions.stop();
  });

  app.get('/soundbox', { schema: pageSchema({ querystring: Query({ merchant: Text() }) }) }, async (request, reply) => {
    const page = consolePage(request, reply);
    const t = translator(words, page.lang);
    const merchants = await listVisibleMerchants(deps, page.viewer);
    const asked = request.query.merchant;
    const chosen =
      asked === undefined ? (merchants.length === 1 ? merchants[0] : undefined) : merchants.find((m) => m.id === asked);
    // Another merchant's soundbox, or an unknown one, is not found.
    if (asked !== undefined && !chosen)
      throw new AppError('merchant_not_found', 'no such merchant', { param: 'merchant' });
    if (!chosen) {
      const chooser =
        merchants.length === 0
          ? html`<p class="card muted">${t('noMerchants')}</p>`
          : html`<form method="get" action="/dashboard/soundbox" class="card"><p>${t('choose')}</p>
<label for="sb-merchant">${t('merchant')}</label>
<select id="sb-merchant" name="merchant">${merchants.map((m) => html`<option value="${m.id}">${m.name}</option>`)}</select>
<button type="submit">${t('open')}</button></form>`;
      return page.send(
        t('title'),
        'soundbox',
        html`<h1>${t('title')}</h1><p class="muted">${t('intro')}</p>${chooser}`,
      );
    }
    const events = `/dashboard/soundbox/events?merchant=${encodeURIComponent(chosen.id)}`;
    const texts = {
      connecting: t('connecting'),
      live: t('live'),
      offline: t('offline'),
      reconnecting: t('reconnecting'),
      trouble: t('trouble'),
      back: t('back'),
      soundOn: t('soundOn'),
      test: t('test'),
      late: t('late'),
      none: t('none'),
      noVoice: t('noVoice'),
      reference: t('reference'),
    };
    const body = html`<div class="heading"><h1>${t('titleOf', { name: chosen.name })}</h1>${
      merchants.length > 1 ? html`<a href="/dashboard/soundbox">${t('other')}</a>` : ''
    }</div>
<section class="soundbox" data-soundbox data-events="${events}" data-ready="/readyz" data-speech-lang="${t('speechLang')}" data-texts="${JSON.stringify(texts)}" data-quiet-ms="${String(config.checkoutHeartbeatSeconds * 3000)}">
<p class="sb-state" role="status" data-state="connecting">${t('connecting')}</p>
<div class="card sb-sound"><button type="button" class="sb-start" data-start>${t('start')}</button><p class="muted" data-start-hint>${t('startHint')}</p></div>
<div class="card sb-day"><h2>${t('today')}</h2><p class="sb-total" data-total>Rp0</p><p class="muted" data-count></p><p class="muted" data-test-total></p></div>
<section class="card"><h2>${t('recent')}</h2><ol class="sb-list" data-list aria-live="off"></ol><p class="muted" data-none>${t('none')}</p></section>
</section>
<script src="${soundboxAssets().url}" defer></script>`;
    return page.send(t('titleOf', { name: chosen.name }), 'soundbox', body);
  });

  app.get(
    '/soundbox/events',
    { schema: pageSchema({ querystring: Query({ merchant: Text(), after: Text(4096) }) }) },
    async (request, reply) => {
      const viewer = request.viewer!;
      const merchantId = request.query.merchant ?? '';
      if (!canSeeMerchant(viewer, merchantId))
        throw new AppError('merchant_not_found', 'no such merchant', { param: 'merchant' });
      // EventSource sends Last-Event-ID on its own reconnects; the page's script, which reconnects with a
      // new EventSource, sends the same position as `after`.
      const header = request.headers['last-event-id'];
      const after = (typeof header === 'string' && header !== '' ? header : request.query.after) || null;
      const slot = slots.take(viewer.userId, merchantId);
      let feed: SoundboxFeed | null = null;
      let stopWatch: () => void = () => {};
      let stopSession: () => void = () => {};
      const stream = new SoundboxStream(deps.now(), () => {
        open.delete(stream);
        stopWatch();
        stopSession();
        slot.release();
      });
      stopSession = sessions.watch(viewer.sessionKey, () => stream.close());
      // Watched first, read second: a payment committed after the read wakes the feed.
      let woken = false;
      stopWatch = watch.watch(() => {
        if (feed) feed.wake();
        else woken = true;
      });
      let opening: FeedOpening;
      try {
        opening = await openPaymentFeed(deps, viewer, merchantId, after);
      } catch (err) {
        stream.close();
        throw err;
      }
      if (closing) {
        stream.close();
        throw new AppError('service_unavailable', 'the server is shutting down', { retryAfter: 1 });
      }
      // The session ended while the day was read (the session watch closed the stream): the page's next try meets the login form.
      if (stream.isClosed) throw new AppError('service_unavailable', 'the session has ended', { retryAfter: 1 });
      reply.hijack();
      const raw = reply.raw;
      // The page may have left while the day was read; its close event has then already fired.
      if (raw.destroyed || !raw.socket || raw.socket.destroyed) {
        stream.close();
        raw.destroy();
        return;
      }
      feed = new SoundboxFeed(deps, stream, opening.merchant.id, request.consoleLang, opening);
      open.set(stream, feed);
      stream.open(raw, request.id, RETRY_MS);
      feed.start(opening);
      if (woken) feed.wake();
      // HEAD: the headers are the whole answer (Node writes no body for it), so the stream ends here.
      if (request.method === 'HEAD') stream.close();
    },
  );
}
