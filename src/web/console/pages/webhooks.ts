import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { html, type SafeHtml } from '../../../domain/html.js';
import type { WebhookEndpointsTable } from '../../../storage/schema.js';
import type { Deps } from '../../../services/deps.js';
import { canSeeMerchant } from '../../../domain/viewer.js';
import { listVisibleMerchants } from '../../../services/merchants/list-visible-merchants.js';
import { resendFailed } from '../../../services/webhooks/resend-failed.js';
import { Form, listOf, Params, Query, Segment, Text, TextList, pageSchema } from '../../forms.js';
import { consolePage, type ConsolePage } from '../context.js';
import { translator, type Translate } from '../../../presentation/messages.js';
import { formatTime } from '../../../presentation/format.js';
import { deliveryLog } from '../../../services/outbox/delivery-log.js';
import { endpointLog } from '../../../services/webhooks/endpoint-log.js';
import { renderDeliveryLog } from '../delivery-log-view.js';
import { getVisibleEndpoint } from '../../../services/webhooks/get-visible-endpoint.js';
import { listVisibleEndpoints } from '../../../services/webhooks/list-visible-endpoints.js';
import { addWebhookEndpoint } from '../../../services/webhooks/add-webhook-endpoint.js';
import { EVENT_TYPES, parseEventList } from '../../../domain/webhook-events.js';
import { removeWebhookEndpoint } from '../../../services/webhooks/remove-webhook-endpoint.js';
import { view } from '../../../services/webhooks/webhook-endpoint-view.js';
import { redirectWithNotice, renderNotice, takeNotice, type Notice } from '../notice.js';
import { words } from './webhooks.words.js';

/** How much of a receiver's answer each attempt shows. */
const EXCERPT_CHARS = 300;

type Word = keyof (typeof words)['en'];
type T = Translate<Word>;

const endpointParams = Params({ id: Segment() });

export async function webhookRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/webhooks', { schema: pageSchema({}) }, async (request, reply) => {
    const page = consolePage(request, reply);
    return listPage(deps, page, takeNotice(request, reply), null);
  });

  app.post(
    '/webhooks',
    { schema: pageSchema({ body: Form({ merchant: Text(), url: Text(), events: TextList() }) }) },
    async (request, reply) => {
      const viewer = request.viewer!;
      const t = translator(words, request.consoleLang);
      const refuse = (text: string) => redirectWithNotice(reply, '/dashboard/webhooks', { kind: 'error', text });
      const merchantId = request.body.merchant ?? '';
      const url = (request.body.url ?? '').trim();
      const events = listOf(request.body.events);
      if (merchantId === '') return refuse(t('merchantRequired'));
      // Another merchant's id is answered as an unknown one: the 404 page.
      if (!canSeeMerchant(viewer, merchantId)) throw new AppError('merchant_not_found', 'no such merchant');
      if (url === '') return refuse(t('urlRequired'));
      if (events.length === 0) return refuse(t('eventsRequired'));
      let created: Awaited<ReturnType<typeof addWebhookEndpoint>>;
      try {
        created = await addWebhookEndpoint(deps, {
          merchantId,
          url,
          events: parseEventList(events.join(',')),
          actor: viewer.actor,
        });
      } catch (err) {
        if (err instanceof AppError && err.code === 'invalid_parameter')
          return refuse(t('invalid', { detail: err.message }));
        throw err;
      }
      // The secret is in this response only: a page rendered here (201), not a redirect to one.
      const page = consolePage(request, reply);
      const secret = html`<section class="card" aria-labelledby="secret-title">
<h2 id="secret-title">${t('secretTitle')}</h2>
<p>${t('secretOnce')}</p>
<p class="secret" id="endpoint-secret">${created.secret}</p>
<button type="button" class="secondary" data-copy="endpoint-secret" data-copied="${t('copied')}">${t('copy')}</button>
</section>`;
      return listPage(deps, page, { kind: 'success', text: t('added', { id: created.id }) }, secret, 201);
    },
  );

  app.post(
    '/webhooks/:id/remove',
    { schema: pageSchema({ params: endpointParams, body: Form({}) }) },
    async (request, reply) => {
      const viewer = request.viewer!;
      const t = translator(words, request.consoleLang);
      const endpoint = await getVisibleEndpoint(deps, viewer, request.params.id);
      const removed = await removeWebhookEndpoint(deps, endpoint.id, viewer.actor);
      return redirectWithNotice(reply, '/dashboard/webhooks', {
        kind: 'success',
        text: t('removed', { url: removed.url, count: removed.cancelled_deliveries }),
      });
    },
  );

  app.post(
    '/webhooks/:id/resend-failed',
    { schema: pageSchema({ params: endpointParams, body: Form({}) }) },
    async (request, reply) => {
      const viewer = request.viewer!;
      const t = translator(words, request.consoleLang);
      const endpoint = await getVisibleEndpoint(deps, viewer, request.params.id);
      const back = `/dashboard/webhooks/${endpoint.id}`;
      try {
        const result = await resendFailed(deps, { endpointId: endpoint.id, actor: viewer.actor });
        return redirectWithNotice(
          reply,
          back,
          result.requeued === 0
            ? { kind: 'success', text: t('nothingToResend') }
            : { kind: 'success', text: t('requeued', { count: result.requeued }) },
        );
      } catch (err) {
        // A removed endpoint takes no resends.
        if (err instanceof AppError && err.code === 'invalid_parameter')
          return redirectWithNotice(reply, back, { kind: 'error', text: t('refusedResend', { detail: err.message }) });
        throw err;
      }
    },
  );

  app.get(
    '/webhooks/:id',
    { schema: pageSchema({ params: endpointParams, querystring: Query({ before: Text() }) }) },
    async (request, reply) => detailPage(deps, request, reply, request.params.id, request.query.before ?? null),
  );
}

async function listPage(
  deps: Deps,
  page: ConsolePage,
  notice: Notice | null,
  secret: SafeHtml | null,
  status = 200,
): Promise<FastifyReply> {
  const t = translator(words, page.lang);
  const [endpoints, merchants] = await Promise.all([
    listVisibleEndpoints(deps, page.viewer),
    listVisibleMerchants(deps, page.viewer),
  ]);
  const names = new Map(merchants.map((m) => [m.id, m.name]));
  const body = html`<h1>${t('endpoints')}</h1>
${renderNotice(notice)}
${secret ?? ''}
${
  endpoints.length === 0
    ? html`<p class="card muted">${t('none')}</p>`
    : html`<div class="table-wrap spaced"><table>
<thead><tr><th>${t('url')}</th><th class="hide-narrow">${t('events')}</th><th>${t('status')}</th><th class="num">${t('failures')}</th><th class="hide-narrow">${t('merchant')}</th><th><span class="visually-hidden">${t('remove')}</span></th></tr></thead>
<tbody>${endpoints.map(
        (
          e,
        ) => html`<tr><td class="mono url" data-label="${t('url')}"><a href="/dashboard/webhooks/${e.id}">${e.url}</a></td><td class="hide-narrow" data-label="${t('events')}">${eventsText(t, e)}</td>
<td data-label="${t('status')}"><span class="badge ${e.status}">${t(e.status)}</span></td><td class="num" data-label="${t('failures')}">${e.consecutive_failures}</td>
<td class="hide-narrow" data-label="${t('merchant')}">${names.get(e.merchant_id) ?? e.merchant_id}</td>
<td data-label="">${e.status === 'disabled' ? '' : removeForm(t, page.csrf, e)}</td></tr>`,
      )}</tbody></table></div>`
}
${merchants.length === 0 ? '' : addForm(t, page.csrf, merchants)}`;
  return page.send(t('title'), 'webhooks', body, status);
}

function addForm(t: T, csrf: string, merchants: ReadonlyArray<{ id: string; name: string }>): SafeHtml {
  return html`<section class="card" aria-labelledby="add-endpoint-title">
<h2 id="add-endpoint-title">${t('add')}</h2>
<p class="muted">${t('addIntro')}</p>
<form method="post" action="/dashboard/webhooks">
<input type="hidden" name="_csrf" value="${csrf}">
<label for="endpoint-merchant">${t('merchant')}</label>
<select id="endpoint-merchant" name="merchant" required>
${merchants.length === 1 ? '' : html`<option value="">${t('chooseMerchant')}</option>`}
${merchants.map((m) => html`<option value="${m.id}">${m.name} (${m.id})</option>`)}
</select>
<label for="endpoint-url">${t('url')}</label>
<input id="endpoint-url" name="url" type="url" required maxlength="2048" placeholder="https://" aria-describedby="endpoint-url-hint" autocomplete="off">
<p class="muted" id="endpoint-url-hint">${t('urlHint')}</p>
<fieldset class="checks"><legend>${t('events')}</legend>
${EVENT_TYPES.map(
  (type, i) =>
    html`<div><input type="checkbox" id="endpoint-event-${i}" name="events" value="${type}" checked><label for="endpoint-event-${i}" class="inline">${type}</label></div>`,
)}
</fieldset>
<button type="submit">${t('add')}</button>
</form>
</section>`;
}

function removeForm(t: T, csrf: string, e: WebhookEndpointsTable): SafeHtml {
  return html`<form method="post" action="/dashboard/webhooks/${e.id}/remove" class="inline" data-confirm="${t('removeConfirm')}">
<input type="hidden" name="_csrf" value="${csrf}"><button type="submit" class="danger">${t('remove')}</button></form>`;
}

function eventsText(t: T, e: WebhookEndpointsTable): string {
  const events = view(e).events;
  return events.includes('*') ? t('allEvents') : events.join(', ');
}

/** An endpoint's page: its deliveries from `cursor` (older than it; null for the newest). */
async function detailPage(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  cursor: string | null,
): Promise<FastifyReply> {
  const page = consolePage(request, reply);
  const t = translator(words, page.lang);
  const endpoint = await getVisibleEndpoint(deps, page.viewer, id);
  const notice = takeNotice(request, reply);
  const [{ entries: deliveries, next }, merchants] = await Promise.all([
    deliveryLog(deps, endpointLog(endpoint.id), cursor),
    listVisibleMerchants(deps, page.viewer),
  ]);
  const merchant = merchants.find((m) => m.id === endpoint.merchant_id);
  const when = (ms: number) => formatTime(ms, page.lang);
  const self = `/dashboard/webhooks/${endpoint.id}`;
  const body = html`<p><a href="/dashboard/webhooks">${t('back')}</a></p>
<h1 class="mono">${endpoint.url}</h1>
${renderNotice(notice)}
<div class="card">
<dl class="fields">
<dt>${t('status')}</dt><dd><span class="badge ${endpoint.status}">${t(endpoint.status)}</span></dd>
<dt>${t('failures')}</dt><dd>${endpoint.consecutive_failures}</dd>
<dt>${t('events')}</dt><dd>${eventsText(t, endpoint)}</dd>
<dt>${t('merchant')}</dt><dd>${merchant?.name ?? endpoint.merchant_id}</dd>
<dt>${t('created')}</dt><dd>${when(endpoint.created_at)}</dd>
</dl>
${
  endpoint.status === 'disabled'
    ? ''
    : html`<div class="actions">
<form method="post" action="${self}/resend-failed" class="inline"><input type="hidden" name="_csrf" value="${page.csrf}"><button type="submit" class="secondary" aria-describedby="resend-hint">${t('resendFailed')}</button></form>
${removeForm(t, page.csrf, endpoint)}
</div>
<p class="muted" id="resend-hint">${t('resendHint')}</p>`
}
</div>
${renderDeliveryLog(deliveries, {
  t,
  when,
  self,
  cursor,
  next,
  anchor: 'delivery',
  heading: (d) => html`<span class="mono">${d.event_type}</span>`,
  lead: (d) => html`<span class="mono">${d.event_id}</span> · `,
  extra: (a) =>
    a.response_body === null || a.response_body === ''
      ? ''
      : html`<pre class="excerpt">${excerpt(a.response_body)}</pre>`,
})}`;
  return page.send(endpoint.url, 'webhooks', body);
}

function excerpt(body: string): string {
  return body.length > EXCERPT_CHARS ? `${body.slice(0, EXCERPT_CHARS)}…` : body;
}
