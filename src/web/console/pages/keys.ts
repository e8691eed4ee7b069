import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { html, type SafeHtml } from '../../../domain/html.js';
import type { Deps } from '../../../services/deps.js';
import { Form, Params, Segment, Text, pageSchema } from '../../forms.js';
import { consolePage, type ConsolePage } from '../context.js';
import { translator } from '../../../presentation/messages.js';
import { modeText } from '../../../presentation/shared-texts.js';
import { words } from './keys.words.js';
import { formatTime } from '../../../presentation/format.js';
import { liveKeysState, type LiveKeysState } from '../../../domain/live-approval.js';
import type { CreatedApiKey } from '../../../services/merchants/api-key-summary.js';
import { createVisibleKey } from '../../../services/merchants/create-visible-key.js';
import { listVisibleKeys } from '../../../services/merchants/list-visible-keys.js';
import { revokeVisibleKey } from '../../../services/merchants/revoke-visible-key.js';
import { listVisibleMerchantRows } from '../../../services/merchants/list-visible-merchant-rows.js';
import { redirectWithNotice, renderNotice, takeNotice } from '../notice.js';
import { merchantsWithoutLiveSource } from '../../../services/sources/live-source.js';
import { noLiveSourceNotice } from '../no-live-source.js';

/** /dashboard/keys: the keys of the viewer's merchants, a form for a new one, and revoke buttons. */
export async function keyRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/keys', { schema: pageSchema({}) }, async (request, reply) => {
    const page = consolePage(request, reply);
    return renderKeys(deps, page, renderNotice(takeNotice(request, reply)), null, 200);
  });

  app.post(
    '/keys',
    { schema: pageSchema({ body: Form({ merchant: Text(), mode: Text() }) }) },
    async (request, reply) => {
      const page = consolePage(request, reply);
      let created: CreatedApiKey;
      try {
        created = await createVisibleKey(deps, page.viewer, {
          merchantId: request.body.merchant ?? '',
          mode: request.body.mode ?? '',
        });
      } catch (err) {
        if (err instanceof AppError && err.param === 'mode')
          return redirectWithNotice(reply, '/dashboard/keys', {
            kind: 'error',
            text: translator(words, page.lang)('modeError'),
          });
        throw err;
      }
      // Rendered here, not redirected to: the key is in this one response only, so a reload cannot show it.
      return renderKeys(deps, page, '', created, 201);
    },
  );

  app.post(
    '/keys/:id/revoke',
    { schema: pageSchema({ params: Params({ id: Segment() }), body: Form({}) }) },
    async (request, reply) => {
      const page = consolePage(request, reply);
      const key = await revokeVisibleKey(deps, page.viewer, request.params.id);
      return redirectWithNotice(reply, '/dashboard/keys', {
        kind: 'success',
        text: translator(words, page.lang)('revokedNotice', { prefix: key.prefix }),
      });
    },
  );
}

/** The page, with the notice of the action that led here, if any. */
async function renderKeys(
  deps: Deps,
  page: ConsolePage,
  notice: SafeHtml | '',
  created: CreatedApiKey | null,
  status: number,
): Promise<FastifyReply> {
  const t = translator(words, page.lang);
  const [merchants, keys] = await Promise.all([
    listVisibleMerchantRows(deps, page.viewer),
    listVisibleKeys(deps, page.viewer),
  ]);
  const names = new Map(merchants.map((m) => [m.id, m.name]));
  const several = merchants.length > 1;
  const disabled = new Set(merchants.filter((m) => m.disabled_at != null).map((m) => m.id));
  // Live keys of these are refused (live_not_approved, live_rejected) until an operator approves the merchant.
  const liveStates = new Map<string, LiveKeysState>(
    merchants.map((m) => [m.id, liveKeysState(m, deps.config.liveKeys)]),
  );
  const liveBadge = (merchantId: string) => {
    const state = liveStates.get(merchantId) ?? 'approved';
    if (state === 'waiting') return html`<span class="badge pending">${t('waiting')}</span>`;
    if (state === 'rejected') return html`<span class="badge failed">${t('rejected')}</span>`;
    return html`<span class="badge ok">${t('active')}</span>`;
  };
  const when = (ms: number | null) => (ms ? formatTime(ms, page.lang) : t('never'));
  // Merchants with a live key in use (or just made) but no enabled live source: their live transactions wait until they expire.
  const withLiveKeys = [
    ...new Set(keys.filter((k) => k.mode === 'live' && k.revoked_at === null).map((k) => k.merchant_id)),
  ];
  const unsourced = await merchantsWithoutLiveSource(deps, withLiveKeys);
  const warnings = withLiveKeys
    .filter((id) => unsourced.has(id))
    .map((id) => noLiveSourceNotice(page.viewer, page.lang, { id, name: names.get(id) ?? id }));

  const shown = created
    ? html`<p class="notice success" role="status">${t('createdNotice', { prefix: created.prefix, merchant: names.get(created.merchant_id) ?? created.merchant_id, mode: modeText(created.mode, page.lang) })}</p>
<section class="card once" aria-labelledby="once-title">
<h2 id="once-title">${t('onceTitle')}</h2>
<p class="notice error" role="alert">${t('once')}</p>
<p class="secret" id="new-key">${created.key}</p>
<p><button type="button" data-copy="new-key" data-copied="${t('copied')}">${t('copy')}</button> <span class="muted">${t('use')}</span></p>
</section>`
    : '';

  const form =
    merchants.length === 0
      ? html`<p class="card muted">${t('noMerchants')}</p>`
      : html`<form method="post" action="/dashboard/keys" class="card filters">
<input type="hidden" name="_csrf" value="${page.csrf}">
${
  several
    ? html`<div><label for="key-merchant">${t('merchant')}</label>
<select id="key-merchant" name="merchant">${merchants.map((m) => html`<option value="${m.id}"${created?.merchant_id === m.id ? html` selected` : ''}>${m.name}</option>`)}</select></div>`
    : html`<input type="hidden" name="merchant" value="${merchants[0]!.id}">`
}
<div><label for="key-mode">${t('mode')}</label>
<select id="key-mode" name="mode"><option value="test">${modeText('test', page.lang)}</option><option value="live">${modeText('live', page.lang)}</option></select></div>
<div><button type="submit">${t('create')}</button></div>
</form>`;

  const table =
    keys.length === 0
      ? html`<p class="card muted">${t('noKeys')}</p>`
      : html`<div class="table-wrap"><table>
<thead><tr><th>${t('prefix')}</th>${several ? html`<th>${t('merchant')}</th>` : ''}<th>${t('mode')}</th><th class="hide-narrow">${t('created')}</th><th>${t('lastUsed')}</th><th>${t('state')}</th><th>${t('actions')}</th></tr></thead>
<tbody>${keys.map(
          (
            k,
          ) => html`<tr${created?.id === k.id ? html` class="fresh"` : ''}><td class="mono key" data-label="${t('prefix')}">${k.key_prefix}</td>${several ? html`<td data-label="${t('merchant')}">${k.merchant_name}</td>` : ''}
<td data-label="${t('mode')}"><span class="badge ${k.mode === 'live' ? 'active' : 'pending'}">${k.mode === 'live' ? modeText('live', page.lang) : modeText('test', page.lang)}</span></td>
<td class="hide-narrow" data-label="${t('created')}">${formatTime(k.created_at, page.lang)}</td><td data-label="${t('lastUsed')}">${when(k.last_used_at)}</td>
<td data-label="${t('state')}">${k.revoked_at === null ? html`${k.mode === 'live' ? liveBadge(k.merchant_id) : html`<span class="badge ok">${t('active')}</span>`}${disabled.has(k.merchant_id) ? html` <span class="badge disabled">${t('disabled')}</span>` : ''}` : html`<span class="badge revoked">${t('revoked')}</span> <span class="muted">${formatTime(k.revoked_at, page.lang)}</span>`}</td>
<td data-label="">${
            k.revoked_at === null
              ? html`<form method="post" action="/dashboard/keys/${k.id}/revoke" class="inline" data-confirm="${t('confirmRevoke', { prefix: k.key_prefix })}">
<input type="hidden" name="_csrf" value="${page.csrf}"><button type="submit" class="danger">${t('revoke')}</button></form>`
              : ''
          }</td></tr>`,
        )}</tbody></table></div>
<p class="muted">${t('lastUsedNote')}</p>`;

  const body = html`<h1>${t('title')}</h1>
${notice}${shown}
${warnings}
<h2>${t('newKey')}</h2>
${form}
${table}`;
  return page.send(t('title'), 'keys', body, status);
}
