import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { html } from '../../../domain/html.js';
import { formatTime } from '../../../presentation/format.js';
import { translator } from '../../../presentation/messages.js';
import { listAuditLog } from '../../../services/audit/list-audit-log.js';
import type { Deps } from '../../../services/deps.js';
import { pageSchema, Query, Text } from '../../forms.js';
import { consolePage } from '../context.js';
import { words } from './audit.words.js';

/** Actions the code writes, offered as suggestions in the action filter (any text may be typed). */
const KNOWN_ACTIONS = [
  'api_key.create',
  'api_key.revoke',
  'merchant.add',
  'merchant.rename',
  'merchant.disable',
  'merchant.enable',
  'merchant.daily_report',
  'merchant.unique_code',
  'notify_channel.add',
  'notify_channel.remove',
  'payment.assign',
  'payment.confirm',
  'source.add',
  'source.enable',
  'source.disable',
  'transaction.accept_received',
  'transaction.cancel',
  'user.add',
  'user.enable',
  'user.disable',
  'user.password',
  'user.login',
  'user.logout',
  'webhook.resend',
  'webhook.resend_failed',
  'webhook_endpoint.add',
  'webhook_endpoint.remove',
];

/** Details as stored (JSON), one `key: value` per line; anything else as it is. Escaped by html``. */
function detailLines(details: string | null): string[] {
  if (details === null) return [];
  try {
    const parsed: unknown = JSON.parse(details);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      return Object.entries(parsed).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
    }
  } catch {
    // Not JSON: shown as it is.
  }
  return [details];
}

/** /dashboard/audit: operators only; to a merchant user it is a 404 like any unknown page. */
export async function auditRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/audit',
    { schema: pageSchema({ querystring: Query({ actor: Text(), action: Text(), before: Text() }) }) },
    async (request, reply) => {
      const page = consolePage(request, reply);
      const t = translator(words, page.lang);
      // Bounded as the page always was: a longer filter is cut to 200 characters, not refused.
      const actor = (request.query.actor ?? '').slice(0, 200);
      const action = (request.query.action ?? '').slice(0, 200);
      const before = (request.query.before ?? '').slice(0, 200);
      const { entries, next } = await listAuditLog(deps, page.viewer, { actor, action, before });
      const filterQuery = (extra: Record<string, string>) => {
        const q = new URLSearchParams();
        if (actor) q.set('actor', actor);
        if (action) q.set('action', action);
        for (const [k, v] of Object.entries(extra)) q.set(k, v);
        const s = q.toString();
        return s ? `/dashboard/audit?${s}` : '/dashboard/audit';
      };
      const byActor = (a: string) => `/dashboard/audit?${new URLSearchParams({ actor: a })}`;
      const byAction = (a: string) => `/dashboard/audit?${new URLSearchParams({ action: a })}`;

      const body = html`<h1>${t('title')}</h1>
<p class="muted">${t('intro')}</p>
<form method="get" action="/dashboard/audit" class="filters card">
<div><label for="audit-actor">${t('actor')}</label><input id="audit-actor" name="actor" value="${actor}" placeholder="user:…" title="${t('actorHint')}"></div>
<div><label for="audit-action">${t('action')}</label><input id="audit-action" name="action" value="${action}" list="audit-actions"></div>
<datalist id="audit-actions">${KNOWN_ACTIONS.map((a) => html`<option value="${a}"></option>`)}</datalist>
<div><button type="submit">${t('filter')}</button> ${actor || action ? html`<a href="/dashboard/audit">${t('clear')}</a>` : ''}</div>
</form>
${
  entries.length === 0
    ? html`<p class="card muted">${t('none')}</p>`
    : html`<div class="table-wrap"><table class="audit">
<thead><tr><th>${t('when')}</th><th>${t('who')}</th><th>${t('what')}</th><th>${t('subject')}</th><th class="hide-narrow">${t('details')}</th></tr></thead>
<tbody>${entries.map(
        (e) => html`<tr><td data-label="${t('when')}">${formatTime(e.created_at, page.lang)}</td>
<td class="mono" data-label="${t('who')}"><a href="${byActor(e.actor)}">${e.actor}</a></td>
<td data-label="${t('what')}"><a href="${byAction(e.action)}"><code>${e.action}</code></a></td>
<td data-label="${t('subject')}"><span class="muted">${e.subject_type}</span> <span class="mono">${e.subject_id}</span></td>
<td class="hide-narrow" data-label="${t('details')}">${detailLines(e.details).map((line) => html`<div class="mono">${line}</div>`)}</td></tr>`,
      )}</tbody></table></div>`
}
<nav class="pager">${before ? html`<a href="${filterQuery({})}">${t('newest')}</a>` : ''}${next ? html`<a href="${filterQuery({ before: next })}" rel="next">${t('older')} →</a>` : ''}</nav>`;
      return page.send(t('title'), 'audit', body);
    },
  );
}
