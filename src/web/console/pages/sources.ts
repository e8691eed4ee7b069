import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { parseSourceName, SOURCE_NAME_MAX } from '../../../domain/source-name.js';
import { html, type SafeHtml } from '../../../domain/html.js';
import type { ConsoleField, SourceKind } from '../../../payment-sources/kind.js';
import { sourceKind, sourceKinds } from '../../../payment-sources/kinds.js';
import type { Deps } from '../../../services/deps.js';
import { listVisibleSources } from '../../../services/sources/list-visible-sources.js';
import { setSourceEnabled } from '../../../services/sources/set-source-enabled.js';
import type { SourceView } from '../../../services/sources/source-view.js';
import type { Viewer } from '../../../domain/viewer.js';
import { lastReports } from '../../../services/overview/last-reports.js';
import { canSeeMerchant, isOperator, merchantScope } from '../../../domain/viewer.js';
import { listVisibleMerchants } from '../../../services/merchants/list-visible-merchants.js';
import { Form, Params, Segment, Text, pageSchema } from '../../forms.js';
import { consolePage, type ConsolePage } from '../context.js';
import { translator, type Lang, type Translate } from '../../../presentation/messages.js';
import { modeText } from '../../../presentation/shared-texts.js';
import { formatTime } from '../../../presentation/format.js';
import { redirectWithNotice, renderNotice, takeNotice, type Notice } from '../notice.js';
import { words } from './sources.words.js';
import { connectPhoneCard, notificationsList } from './phone-card.js';
import { listSourceNotifications, type NotificationView } from '../../../services/sources/list-source-notifications.js';

type T = Translate<keyof (typeof words)['en']>;

/** The kinds this viewer may add on this page, in the registry's order. */
function addableKinds(viewer: Viewer): SourceKind[] {
  return sourceKinds.filter((kind) => kind.console !== undefined && (!kind.console.operatorOnly || isOperator(viewer)));
}

/**
 * How the page shows each of the kinds' own fields (the kinds say which they read: kind.console.fields).
 * Every field is labelled with the kinds it is for, so the form reads right without script; console.js
 * then shows only the chosen kind's (data-for-kinds).
 */
const FIELDS: Record<ConsoleField, (t: T, label: SafeHtml) => SafeHtml> = {
  url: (t, label) => html`<label for="source-url">${label}</label>
<input id="source-url" name="url" type="url" maxlength="2048" placeholder="https://" autocomplete="off" aria-describedby="source-url-hint">
<p class="muted" id="source-url-hint">${t('feedUrlHint')}</p>`,
  method: (t, label) => html`<label for="source-method">${label}</label>
<select id="source-method" name="method" aria-describedby="source-method-hint">
<option value="GET">GET</option>
<option value="POST">POST</option>
</select>
<p class="muted" id="source-method-hint">${t('methodHint')}</p>`,
  headers: (t, label) => html`<label for="source-headers">${label}</label>
<textarea id="source-headers" name="headers" maxlength="8000" spellcheck="false" autocomplete="off" aria-describedby="source-headers-hint"></textarea>
<p class="muted" id="source-headers-hint">${t('headersHint')}</p>`,
  body: (t, label) => html`<label for="source-body">${label}</label>
<textarea id="source-body" name="body" maxlength="16384" spellcheck="false" autocomplete="off" aria-describedby="source-body-hint"></textarea>
<p class="muted" id="source-body-hint">${t('bodyHint')}</p>`,
  interval: (t, label) => html`<label for="source-interval">${label}</label>
<input id="source-interval" name="interval" type="number" min="5" max="86400" step="1" value="60" aria-describedby="source-interval-hint">
<p class="muted" id="source-interval-hint">${t('intervalHint')}</p>`,
  mapping: (t, label) => html`<label for="source-mapping">${label}</label>
<textarea id="source-mapping" name="mapping" maxlength="4000" spellcheck="false" aria-describedby="source-mapping-hint"></textarea>
<p class="muted" id="source-mapping-hint">${t('mappingHint')}</p>`,
};
const FIELD_LABEL = {
  url: 'feedUrl',
  method: 'method',
  headers: 'headers',
  body: 'body',
  interval: 'interval',
  mapping: 'mapping',
} as const;

/** The fields of the kinds this viewer may add, each once, in the order of the first kind that reads it. */
function kindFields(t: T, lang: Lang, kinds: readonly SourceKind[]): SafeHtml[] {
  const names = [...new Set(kinds.flatMap((k) => k.console?.fields ?? []))];
  return names.map((name) => {
    const users = kinds.filter((k) => k.console?.fields.includes(name));
    const label = html`${t(FIELD_LABEL[name])} <span class="for-kinds">${t('onlyFor', { kinds: users.map((k) => k.label[lang]).join(', ') })}</span>`;
    return html`<div class="kind-field" data-for-kinds="${users.map((k) => k.type).join(' ')}">
${FIELDS[name](t, label)}
</div>`;
  });
}

const refusedField = { url: 'feedUrlRequired', interval: 'intervalRequired', mapping: 'mappingJson' } as const;

/** The add form: the fields every kind shares, and the kinds' own (feed/kind.ts reads url, method, headers, body, interval and mapping). */
const addFields = Form({
  type: Text(),
  merchant: Text(),
  mode: Text(),
  name: Text(),
  url: Text(),
  method: Text(),
  headers: Text(),
  body: Text(),
  interval: Text(),
  mapping: Text(),
});

export async function sourceRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/sources', { schema: pageSchema({}) }, async (request, reply) =>
    listPage(deps, consolePage(request, reply), takeNotice(request, reply), null),
  );

  app.post('/sources', { schema: pageSchema({ body: addFields }) }, async (request, reply) => {
    const viewer = request.viewer!;
    const t = translator(words, request.consoleLang);
    const refuse = (text: string) => redirectWithNotice(reply, '/dashboard/sources', { kind: 'error', text });
    const merchantId = request.body.merchant ?? '';
    const mode = request.body.mode ?? '';
    // The kind reads its own fields by name (each one declared in addFields).
    const fields: Record<string, string | undefined> = request.body;
    const kind = sourceKinds.find((k) => k.type === request.body.type);
    if (!kind?.console) return refuse(t('typeRequired'));
    if (merchantId === '') return refuse(t('merchantRequired'));
    // Another merchant's id is answered as an unknown one: the 404 page.
    if (!canSeeMerchant(viewer, merchantId)) throw new AppError('merchant_not_found', 'no such merchant');
    const actor = viewer.actor;
    try {
      if (kind.console.operatorOnly && !isOperator(viewer)) return refuse(t('feedOnlyOperator'));
      // Refused before anything is stored; stored with the source, in its unit of work.
      const name = parseSourceName(request.body.name);
      const added = await kind.console.add(deps, {
        merchantId,
        mode,
        field: (field) => fields[field] ?? '',
        actor,
        name,
      });
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
        return listPage(
          deps,
          consolePage(request, reply),
          { kind: 'success', text: t('addedWebhook', { id: added.id }) },
          secret,
          201,
        );
      }
      if (added.shows === 'phone') {
        // The token and secret are in this response only, as a webhook's secret.
        const card = connectPhoneCard(request.consoleLang, {
          url: `${deps.config.publicBaseUrl}${added.url}`,
          token: added.token,
          secret: added.secret,
        });
        return listPage(
          deps,
          consolePage(request, reply),
          { kind: 'success', text: t('addedPhone', { id: added.id }) },
          card,
          201,
        );
      }
      return redirectWithNotice(reply, '/dashboard/sources', {
        kind: 'success',
        text: t('addedFeed', { id: added.id, url: added.url, seconds: added.intervalSeconds }),
      });
    } catch (err) {
      if (err instanceof AppError && err.code === 'invalid_parameter')
        return refuse(t('invalid', { detail: err.message }));
      throw err;
    }
  });

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.post(
      `/sources/:id/${action}`,
      { schema: pageSchema({ params: Params({ id: Segment() }), body: Form({}) }) },
      async (request, reply) => {
        const viewer = request.viewer!;
        const t = translator(words, request.consoleLang);
        // An unknown or another merchant's source is source_not_found: the 404 page.
        const source = await setSourceEnabled(deps, {
          id: request.params.id,
          enabled,
          actor: viewer.actor,
          merchants: merchantScope(viewer),
        });
        return redirectWithNotice(reply, '/dashboard/sources', {
          kind: 'success',
          text: t(enabled ? 'nowEnabled' : 'nowDisabled', { id: source.id }),
        });
      },
    );
  }
}

async function listPage(
  deps: Deps,
  page: ConsolePage,
  notice: Notice | null,
  secret: SafeHtml | null,
  status = 200,
): Promise<FastifyReply> {
  const t = translator(words, page.lang);
  const [sources, merchants] = await Promise.all([
    listVisibleSources(deps, merchantScope(page.viewer)),
    listVisibleMerchants(deps, page.viewer),
  ]);
  const reports = await lastReports(
    deps,
    sources.map((s) => s.id),
  );
  const notifications = await listSourceNotifications(
    deps,
    sources.filter((s) => sourceKind(s.type).notifications === true).map((s) => s.id),
  );
  const names = new Map(merchants.map((m) => [m.id, m.name]));
  const when = (iso: string | null | undefined) => (iso ? formatTime(Date.parse(iso), page.lang) : t('never'));
  const body = html`<h1>${t('title')}</h1>
${renderNotice(notice)}
${secret ?? ''}
${
  sources.length === 0
    ? html`<p class="card muted">${t('none')}</p>`
    : html`<div class="grid sources spaced">${sources.map((s) => sourceCard(t, page, s, names.get(s.merchant_id) ?? s.merchant_id, reports.get(s.id) ?? null, when, deps.config.publicBaseUrl, notifications.get(s.id)))}</div>`
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
  notifications: readonly NotificationView[] | undefined,
): SafeHtml {
  const kind = sourceKind(s.type);
  const polled = kind.polled;
  return html`<section class="card source" aria-labelledby="source-${s.id}">
<h2 id="source-${s.id}">${s.name === null ? kind.label[page.lang] : html`${s.name} <span class="muted">${kind.label[page.lang]}</span>`} <span class="badge ${s.enabled ? 'ok' : 'disabled'}">${s.enabled ? t('enabled') : t('disabled')}</span></h2>
<dl class="fields">
<dt>Id</dt><dd class="mono">${s.id}</dd>
<dt>${t('merchant')}</dt><dd>${merchantName}</dd>
<dt>${t('mode')}</dt><dd>${s.mode === 'test' ? modeText('test', page.lang) : modeText('live', page.lang)}</dd>
${s.url === null ? '' : html`<dt>${kind.inbound ? t('postTo') : t('url')}</dt><dd class="mono">${s.method === 'POST' ? 'POST ' : ''}${kind.inbound ? `${baseUrl}${s.url}` : s.url}</dd>`}
${Object.keys(s.headers ?? {}).length === 0 ? '' : html`<dt>${t('headers')}</dt><dd class="mono">${Object.entries(s.headers ?? {}).map(([name, value]) => html`<span class="header-line">${name}: ${value}</span> `)}</dd>`}
${s.body ? html`<dt>${t('body')}</dt><dd class="mono">${s.body}</dd>` : ''}
${polled ? html`<dt>${t('polls')}</dt><dd>${t('every', { seconds: s.interval_seconds ?? 0 })}</dd>` : ''}
<dt>${t('lastReport')}</dt><dd>${lastReport === null ? t('never') : formatTime(lastReport, page.lang)}</dd>
${
  polled
    ? html`<dt>${t('lastPoll')}</dt><dd>${when(s.last_success_at)}</dd>
<dt>${t('failures')}</dt><dd>${s.failures ?? 0}</dd>
${s.last_error ? html`<dt>${t('lastError')}</dt><dd class="error-text">${s.last_error}</dd>` : ''}
${s.enabled ? html`<dt>${t('nextPoll')}</dt><dd>${when(s.next_poll_at)}</dd>` : ''}`
    : ''
}
</dl>
${notifications === undefined ? '' : notificationsList(page.lang, s.id, notifications)}
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
<select id="source-type" name="type" required data-shows-fields>
${kinds.map((k) => typeOption(k, page.lang))}
</select>
<label for="source-merchant">${t('merchant')}</label>
<select id="source-merchant" name="merchant" required>
${merchants.length === 1 ? '' : html`<option value="">${t('chooseMerchant')}</option>`}
${merchants.map((m) => html`<option value="${m.id}">${m.name} (${m.id})</option>`)}
</select>
<label for="source-mode">${t('mode')}</label>
<select id="source-mode" name="mode">
<option value="live">${modeText('live', page.lang)}</option>
<option value="test">${modeText('test', page.lang)}</option>
</select>
<label for="source-name">${t('name')}</label>
<input id="source-name" name="name" maxlength="${String(SOURCE_NAME_MAX)}" autocomplete="off" placeholder="${t('namePlaceholder')}" aria-describedby="source-name-hint">
<div id="source-name-hint" class="hint muted">${t('nameHint')}</div>
${kindFields(t, page.lang, kinds)}
<button type="submit">${t('add')}</button>
</form>
</section>`;
}

function typeOption(kind: SourceKind, lang: Lang): SafeHtml {
  return html`<option value="${kind.type}">${kind.label[lang]}</option>`;
}
