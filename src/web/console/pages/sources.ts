// /dashboard/sources: a viewer's payment sources with their health, adding a signed-webhook source (its
// secret shown once) or a mutation feed, and turning a source off and on. What each kind shows and how it
// is added are its own (payment-sources/<kind>/kind.ts, listed in kinds.ts); the switch is a service
// (the CLI's `source` commands use both too), which validate and write the audit row with the change.
import { userActor } from '../../../domain/actor.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { html, type SafeHtml } from '../../../domain/html.js';
import type { SourceKind } from '../../../payment-sources/kind.js';
import { sourceKind, sourceKinds } from '../../../payment-sources/kinds.js';
import type { Deps } from '../../../services/deps.js';
import { listVisibleSources } from '../../../services/sources/list-visible-sources.js';
import { setSourceEnabled } from '../../../services/sources/set-source-enabled.js';
import type { SourceView } from '../../../services/sources/source-view.js';
import type { Viewer } from '../../../services/users/viewer.js';
import { lastReports } from '../../../services/overview/get-overview.js';
import { canSeeMerchant, isOperator, merchantScope } from '../../../services/users/viewer.js';
import { listVisibleMerchants } from '../../../services/merchants/list-visible-merchants.js';
import { consolePage, field, type ConsolePage } from '../context.js';
import { defineMessages, translator, wibTime, type Lang, type Translate } from '../i18n.js';
import { redirectWithNotice, renderNotice, takeNotice, type Notice } from '../notice.js';

const words = defineMessages(
  {
    title: 'Payment sources',
    none: 'No payment sources yet. Payments are then learned only from the simulator (test mode) or confirmed by hand.',
    merchant: 'Merchant',
    type: 'Type',
    mode: 'Mode',
    live: 'live',
    test: 'test',
    state: 'State',
    enabled: 'enabled',
    disabled: 'disabled',
    url: 'URL',
    postTo: 'Senders post to',
    polls: 'Polls',
    every: 'every {seconds} s',
    lastReport: 'Last payment reported',
    lastPoll: 'Last successful poll',
    failures: 'Failures in a row',
    lastError: 'Last error',
    nextPoll: 'Next poll',
    never: 'never',
    enable: 'Enable',
    disable: 'Disable',
    disableConfirm: 'Disable this source? Its webhook then answers 404 and a feed is no longer polled.',
    add: 'Add source',
    addIntro: 'A signed webhook receives payments your own tools post (a phone app, a bank-statement script). A mutation feed is polled by the gateway.',
    feedOnlyOperator: 'Only an operator can add a feed: the gateway fetches its URL from inside its own network.',
    chooseMerchant: 'Choose a merchant',
    feedUrl: 'Feed URL',
    feedUrlHint: 'Feed only: the http(s) URL of the incoming-payment history.',
    interval: 'Poll interval (seconds)',
    intervalHint: 'Feed only: 5 to 86400.',
    mapping: 'Field mapping (JSON)',
    mappingHint: 'Feed only, optional: where values are read, over the OrderKuota-style defaults, e.g. {"type": null}.',
    secretTitle: 'Signing secret',
    secretOnce: 'Give it to the sender now: it is shown only this once. The sender signs each post with it (X-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">).',
    sendTo: 'The sender posts each payment to',
    copy: 'Copy',
    copied: 'Copied',
    addedWebhook: 'Webhook source {id} added.',
    addedFeed: 'Feed source {id} added: polls {url} every {seconds} s.',
    nowEnabled: 'Source {id} is enabled.',
    nowDisabled: 'Source {id} is disabled.',
    typeRequired: 'Choose the type of source.',
    merchantRequired: 'Choose the merchant whose payments this source reports.',
    feedUrlRequired: 'Enter the URL of the feed.',
    intervalRequired: 'Enter how many seconds to wait between polls.',
    mappingJson: 'The field mapping is not valid JSON.',
    invalid: 'This cannot be saved: {detail}',
  },
  {
    title: 'Sumber pembayaran',
    none: 'Belum ada sumber pembayaran. Pembayaran hanya diketahui dari simulator (mode uji) atau dikonfirmasi manual.',
    merchant: 'Merchant',
    type: 'Jenis',
    mode: 'Mode',
    live: 'live',
    test: 'uji',
    state: 'Status',
    enabled: 'aktif',
    disabled: 'nonaktif',
    url: 'URL',
    postTo: 'Pengirim mengirim ke',
    polls: 'Polling',
    every: 'setiap {seconds} dtk',
    lastReport: 'Pembayaran terakhir dilaporkan',
    lastPoll: 'Polling sukses terakhir',
    failures: 'Gagal berturut-turut',
    lastError: 'Kesalahan terakhir',
    nextPoll: 'Polling berikutnya',
    never: 'belum pernah',
    enable: 'Aktifkan',
    disable: 'Nonaktifkan',
    disableConfirm: 'Nonaktifkan sumber ini? Webhook-nya akan menjawab 404 dan feed tidak lagi di-polling.',
    add: 'Tambah sumber',
    addIntro: 'Webhook bertanda tangan menerima pembayaran yang dikirim alat Anda sendiri (aplikasi ponsel, skrip mutasi bank). Feed mutasi di-polling oleh gateway.',
    feedOnlyOperator: 'Hanya operator yang dapat menambah feed: gateway mengambil URL-nya dari dalam jaringannya sendiri.',
    chooseMerchant: 'Pilih merchant',
    feedUrl: 'URL feed',
    feedUrlHint: 'Khusus feed: URL http(s) riwayat pembayaran masuk.',
    interval: 'Interval polling (detik)',
    intervalHint: 'Khusus feed: 5 sampai 86400.',
    mapping: 'Pemetaan kolom (JSON)',
    mappingHint: 'Khusus feed, opsional: tempat nilai dibaca, di atas bawaan gaya OrderKuota, mis. {"type": null}.',
    secretTitle: 'Rahasia penandatanganan',
    secretOnce: 'Berikan ke pengirim sekarang: rahasia ini hanya ditampilkan sekali ini. Pengirim menandatangani setiap kiriman dengannya (X-Signature: t=<unix>,v1=<hex HMAC-SHA256 dari "<t>.<body>">).',
    sendTo: 'Pengirim mengirim setiap pembayaran ke',
    copy: 'Salin',
    copied: 'Tersalin',
    addedWebhook: 'Sumber webhook {id} ditambahkan.',
    addedFeed: 'Sumber feed {id} ditambahkan: polling {url} setiap {seconds} dtk.',
    nowEnabled: 'Sumber {id} diaktifkan.',
    nowDisabled: 'Sumber {id} dinonaktifkan.',
    typeRequired: 'Pilih jenis sumber.',
    merchantRequired: 'Pilih merchant yang pembayarannya dilaporkan sumber ini.',
    feedUrlRequired: 'Masukkan URL feed.',
    intervalRequired: 'Masukkan jeda antar-polling dalam detik.',
    mappingJson: 'Pemetaan kolom bukan JSON yang sah.',
    invalid: 'Tidak dapat disimpan: {detail}',
  },
);

type T = Translate<keyof (typeof words)['en']>;

/** The kinds this viewer may add on this page, in the registry's order. */
function addableKinds(viewer: Viewer): SourceKind[] {
  return sourceKinds.filter((kind) => kind.console !== undefined && (!kind.console.operatorOnly || isOperator(viewer)));
}

const refusedField = { url: 'feedUrlRequired', interval: 'intervalRequired', mapping: 'mappingJson' } as const;

export async function sourceRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  scope.get('/sources', { schema: { hide: true } }, async (request, reply) => listPage(deps, consolePage(request, reply), takeNotice(request, reply), null));

  scope.post('/sources', { schema: { hide: true } }, async (request, reply) => {
    const viewer = request.viewer!;
    const t = translator(words, request.consoleLang);
    const refuse = (text: string) => redirectWithNotice(reply, '/dashboard/sources', { kind: 'error', text });
    const type = field(request.body, 'type');
    const merchantId = field(request.body, 'merchant');
    const mode = field(request.body, 'mode');
    const kind = sourceKinds.find((k) => k.type === type);
    if (!kind?.console) return refuse(t('typeRequired'));
    if (merchantId === '') return refuse(t('merchantRequired'));
    // Another merchant's id is answered as an unknown one: the 404 page.
    if (!canSeeMerchant(viewer, merchantId)) throw new AppError('merchant_not_found', 'no such merchant');
    const actor = userActor(viewer);
    try {
      if (kind.console.operatorOnly && !isOperator(viewer)) return refuse(t('feedOnlyOperator'));
      const added = await kind.console.add(deps, { merchantId, mode, field: (name) => field(request.body, name), actor });
      if (added.shows === 'refused') return refuse(t(refusedField[added.field]));
      if (added.shows === 'secret') {
        // The secret is in this response only: a page rendered here (201), not a redirect to one.
        const url = `${deps.config.publicBaseUrl}${added.url}`;
        const secret = html`<section class="card" aria-labelledby="secret-title">
<h2 id="secret-title">${t('secretTitle')}</h2>
<p>${t('secretOnce')}</p>
<p class="secret" id="source-secret">${added.secret}</p>
<button type="button" class="secondary" data-copy="source-secret" data-copied="${t('copied')}">${t('copy')}</button>
<p>${t('sendTo')}</p>
<p class="secret" id="source-url">${url}</p>
</section>`;
        return listPage(deps, consolePage(request, reply), { kind: 'success', text: t('addedWebhook', { id: added.id }) }, secret, 201);
      }
      return redirectWithNotice(reply, '/dashboard/sources', {
        kind: 'success',
        text: t('addedFeed', { id: added.id, url: added.url, seconds: added.intervalSeconds }),
      });
    } catch (err) {
      if (err instanceof AppError && err.code === 'invalid_parameter') return refuse(t('invalid', { detail: err.message }));
      throw err;
    }
  });

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    scope.post<{ Params: { id: string } }>(`/sources/:id/${action}`, { schema: { hide: true } }, async (request, reply) => {
      const viewer = request.viewer!;
      const t = translator(words, request.consoleLang);
      // An unknown or another merchant's source is source_not_found: the 404 page.
      const source = await setSourceEnabled(deps, { id: request.params.id, enabled, actor: userActor(viewer), merchants: merchantScope(viewer) });
      return redirectWithNotice(reply, '/dashboard/sources', { kind: 'success', text: t(enabled ? 'nowEnabled' : 'nowDisabled', { id: source.id }) });
    });
  }
}

async function listPage(deps: Deps, page: ConsolePage, notice: Notice | null, secret: SafeHtml | null, status = 200): Promise<FastifyReply> {
  const t = translator(words, page.lang);
  const [sources, merchants] = await Promise.all([listVisibleSources(deps, merchantScope(page.viewer)), listVisibleMerchants(deps, page.viewer)]);
  const reports = await lastReports(
    deps,
    sources.map((s) => s.id),
  );
  const names = new Map(merchants.map((m) => [m.id, m.name]));
  const when = (iso: string | null | undefined) => (iso ? wibTime(Date.parse(iso), page.lang) : t('never'));
  const body = html`<h1>${t('title')}</h1>
${renderNotice(notice)}
${secret ?? ''}
${
  sources.length === 0
    ? html`<p class="card muted">${t('none')}</p>`
    : html`<div class="grid sources spaced">${sources.map((s) => sourceCard(t, page, s, names.get(s.merchant_id) ?? s.merchant_id, reports.get(s.id) ?? null, when, deps.config.publicBaseUrl))}</div>`
}
${merchants.length === 0 ? '' : addForm(t, page, merchants)}`;
  return page.send(t('title'), 'sources', body, status);
}

function sourceCard(
  t: T,
  page: ConsolePage,
  s: SourceView,
  merchantName: string,
  lastReport: number | null,
  when: (iso: string | null | undefined) => string,
  baseUrl: string,
): SafeHtml {
  const kind = sourceKind(s.type);
  const polled = kind.polled;
  return html`<section class="card source" aria-labelledby="source-${s.id}">
<h2 id="source-${s.id}">${kind.label[page.lang]} <span class="badge ${s.enabled ? 'ok' : 'disabled'}">${s.enabled ? t('enabled') : t('disabled')}</span></h2>
<dl class="fields">
<dt>Id</dt><dd class="mono">${s.id}</dd>
<dt>${t('merchant')}</dt><dd>${merchantName}</dd>
<dt>${t('mode')}</dt><dd>${s.mode === 'test' ? t('test') : t('live')}</dd>
${s.url === null ? '' : html`<dt>${kind.inbound ? t('postTo') : t('url')}</dt><dd class="mono">${kind.inbound ? `${baseUrl}${s.url}` : s.url}</dd>`}
${polled ? html`<dt>${t('polls')}</dt><dd>${t('every', { seconds: s.interval_seconds ?? 0 })}</dd>` : ''}
<dt>${t('lastReport')}</dt><dd>${lastReport === null ? t('never') : wibTime(lastReport, page.lang)}</dd>
${
  polled
    ? html`<dt>${t('lastPoll')}</dt><dd>${when(s.last_success_at)}</dd>
<dt>${t('failures')}</dt><dd>${s.failures ?? 0}</dd>
${s.last_error ? html`<dt>${t('lastError')}</dt><dd class="error-text">${s.last_error}</dd>` : ''}
${s.enabled ? html`<dt>${t('nextPoll')}</dt><dd>${when(s.next_poll_at)}</dd>` : ''}`
    : ''
}
</dl>
${
  s.enabled
    ? html`<form method="post" action="/dashboard/sources/${s.id}/disable" class="switch" data-confirm="${t('disableConfirm')}"><input type="hidden" name="_csrf" value="${page.csrf}"><button type="submit" class="danger" aria-describedby="source-${s.id}">${t('disable')}</button></form>`
    : html`<form method="post" action="/dashboard/sources/${s.id}/enable" class="switch"><input type="hidden" name="_csrf" value="${page.csrf}"><button type="submit" aria-describedby="source-${s.id}">${t('enable')}</button></form>`
}
</section>`;
}

function addForm(t: T, page: ConsolePage, merchants: ReadonlyArray<{ id: string; name: string }>): SafeHtml {
  const kinds = addableKinds(page.viewer);
  const withheld = sourceKinds.some((k) => k.console?.operatorOnly === true) && !isOperator(page.viewer);
  return html`<section class="card" aria-labelledby="add-source-title">
<h2 id="add-source-title">${t('add')}</h2>
<p class="muted">${t('addIntro')}${withheld ? html` ${t('feedOnlyOperator')}` : ''}</p>
<form method="post" action="/dashboard/sources">
<input type="hidden" name="_csrf" value="${page.csrf}">
<label for="source-type">${t('type')}</label>
<select id="source-type" name="type" required>
${kinds.map((k) => typeOption(k, page.lang))}
</select>
<label for="source-merchant">${t('merchant')}</label>
<select id="source-merchant" name="merchant" required>
${merchants.length === 1 ? '' : html`<option value="">${t('chooseMerchant')}</option>`}
${merchants.map((m) => html`<option value="${m.id}">${m.name} (${m.id})</option>`)}
</select>
<label for="source-mode">${t('mode')}</label>
<select id="source-mode" name="mode">
<option value="live">${t('live')}</option>
<option value="test">${t('test')}</option>
</select>
${
  kinds.some((k) => k.polled)
    ? html`<label for="source-url">${t('feedUrl')}</label>
<input id="source-url" name="url" type="url" maxlength="2048" placeholder="https://" autocomplete="off" aria-describedby="source-url-hint">
<p class="muted" id="source-url-hint">${t('feedUrlHint')}</p>
<label for="source-interval">${t('interval')}</label>
<input id="source-interval" name="interval" type="number" min="5" max="86400" step="1" value="60" aria-describedby="source-interval-hint">
<p class="muted" id="source-interval-hint">${t('intervalHint')}</p>
<label for="source-mapping">${t('mapping')}</label>
<textarea id="source-mapping" name="mapping" maxlength="4000" spellcheck="false" aria-describedby="source-mapping-hint"></textarea>
<p class="muted" id="source-mapping-hint">${t('mappingHint')}</p>`
    : ''
}
<button type="submit">${t('add')}</button>
</form>
</section>`;
}

function typeOption(kind: SourceKind, lang: Lang): SafeHtml {
  return html`<option value="${kind.type}">${kind.label[lang]}</option>`;
}
