import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { html, type SafeHtml } from '../../../domain/html.js';
import { isOperator } from '../../../domain/viewer.js';
import { formatTime } from '../../../presentation/format.js';
import { translator, type Translate } from '../../../presentation/messages.js';
import { approveLive } from '../../../services/merchants/approve-live.js';
import { askAgainLive } from '../../../services/merchants/ask-again-live.js';
import type { Deps } from '../../../services/deps.js';
import { liveApprovalQueue, type ApprovalEntry } from '../../../services/merchants/live-approval-queue.js';
import { rejectLive } from '../../../services/merchants/reject-live.js';
import { Form, Params, Segment, pageSchema } from '../../forms.js';
import { consolePage, type ConsolePage } from '../context.js';
import { redirectWithNotice, renderNotice, takeNotice } from '../notice.js';
import { words } from './approvals.words.js';

type T = Translate<keyof typeof words.en>;
const QUEUE = '/dashboard/approvals';

/**
 * /dashboard/approvals: the operators' queue of self-service merchants whose live keys wait
 * (LIVE_KEYS=approval), with who signed up, the merchant's NMID and whether another merchant has it too;
 * Approve, Reject, and for a rejected one "Ask again". Anyone else gets a 404, as for an unknown page.
 */
export async function approvalRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const merchantParams = Params({ merchantId: Segment() });

  app.get('/approvals', { schema: pageSchema({}) }, async (request, reply) => {
    const page = consolePage(request, reply);
    if (!isOperator(page.viewer)) throw new AppError('not_found', 'not found');
    const t = translator(words, page.lang);
    const queue = await liveApprovalQueue(deps, page.viewer);
    const notice = takeNotice(request, reply);
    const body = html`<h1>${t('title')}</h1>
<p class="muted">${t('intro')}</p>
${renderNotice(notice)}
<section aria-labelledby="waiting-title"><h2 id="waiting-title">${t('waitingTitle', { count: queue.waiting.length })}</h2>
${queue.waiting.length === 0 ? html`<p class="card muted">${t('noneWaiting')}</p>` : waitingTable(t, page, queue.waiting)}
</section>
${
  queue.rejected.length === 0
    ? ''
    : html`<section aria-labelledby="rejected-title"><h2 id="rejected-title">${t('rejectedTitle', { count: queue.rejected.length })}</h2>
<p class="muted">${t('rejectedIntro')}</p>
${rejectedTable(t, page, queue.rejected)}
</section>`
}`;
    return page.send(t('title'), 'approvals', body);
  });

  // Each action comes back to the queue with what it did; one that found nothing to do says so.
  app.post(
    '/approvals/:merchantId',
    { schema: pageSchema({ params: merchantParams, body: Form({}) }) },
    async (request, reply) => {
      const page = consolePage(request, reply);
      const row = await approveLive(deps, page.viewer, request.params.merchantId);
      return redirectWithNotice(reply, QUEUE, {
        kind: 'success',
        text: translator(words, page.lang)('approved', { name: row.name }),
      });
    },
  );

  app.post(
    '/approvals/:merchantId/reject',
    { schema: pageSchema({ params: merchantParams, body: Form({}) }) },
    async (request, reply) => {
      const page = consolePage(request, reply);
      const row = await rejectLive(deps, page.viewer, request.params.merchantId);
      const t = translator(words, page.lang);
      const done = row.live_approved_at == null && row.live_rejected_at != null;
      return redirectWithNotice(
        reply,
        QUEUE,
        done
          ? { kind: 'success', text: t('rejected', { name: row.name }) }
          : { kind: 'info', text: t('notWaiting', { name: row.name }) },
      );
    },
  );

  app.post(
    '/approvals/:merchantId/ask-again',
    { schema: pageSchema({ params: merchantParams, body: Form({}) }) },
    async (request, reply) => {
      const page = consolePage(request, reply);
      const before = request.params.merchantId;
      const row = await askAgainLive(deps, page.viewer, before);
      const t = translator(words, page.lang);
      const waiting = row.live_approved_at == null && row.live_rejected_at == null;
      return redirectWithNotice(
        reply,
        QUEUE,
        waiting
          ? { kind: 'success', text: t('askedAgain', { name: row.name }) }
          : { kind: 'info', text: t('notRejected', { name: row.name }) },
      );
    },
  );
}

/** Who signed up, and when that account was made. */
function signedUpCell(t: T, page: ConsolePage, e: ApprovalEntry): SafeHtml {
  if (e.signedUp === null) return html`<span class="muted">${t('noMember')}</span>`;
  if (e.signedUp.deleted) return html`<span class="muted">${t('deletedUser')}</span>`;
  return html`${e.signedUp.email}<div class="muted">${t('signedUpAt', { when: formatTime(e.signedUp.at, page.lang) })}</div>`;
}

/** The merchant's NMID, flagged when another merchant was saved with it too (each linked). */
function nmidCell(t: T, e: ApprovalEntry): SafeHtml {
  const nmid = html`<span class="mono">${e.merchant.nmid ?? '–'}</span>`;
  if (e.sameNmid.length === 0) return nmid;
  return html`${nmid} <span class="badge failed">${t('duplicate')}</span>
<div class="muted">${t('duplicateOf')}: ${e.sameNmid.map((m, i) => html`${i > 0 ? ', ' : ''}<a href="/dashboard/merchants/${m.id}">${m.name}</a>`)}</div>`;
}

const merchantCell = (e: ApprovalEntry) =>
  html`<a href="/dashboard/merchants/${e.merchant.id}">${e.merchant.name}</a><div class="muted">${e.merchant.merchant_name}, ${e.merchant.merchant_city}</div>`;

/** One action's form: a button named for its merchant, so each row's buttons are told apart. */
function action(page: ConsolePage, path: string, label: string, text: string, secondary: boolean): SafeHtml {
  return html`<form method="post" action="${path}" class="inline"><input type="hidden" name="_csrf" value="${page.csrf}"><button type="submit"${secondary ? html` class="secondary"` : ''} aria-label="${label}">${text}</button></form>`;
}

function waitingTable(t: T, page: ConsolePage, entries: ApprovalEntry[]): SafeHtml {
  return html`<div class="table-wrap"><table>
<thead><tr><th>${t('signedUp')}</th><th>${t('merchant')}</th><th>${t('nmid')}</th><th>${t('added')}</th><th>${t('actions')}</th></tr></thead>
<tbody>${entries.map((e) => {
    const path = `${QUEUE}/${encodeURIComponent(e.merchant.id)}`;
    return html`<tr><td data-label="${t('signedUp')}">${signedUpCell(t, page, e)}</td><td data-label="${t('merchant')}">${merchantCell(e)}</td>
<td data-label="${t('nmid')}">${nmidCell(t, e)}</td><td data-label="${t('added')}">${formatTime(e.merchant.created_at, page.lang)}</td>
<td data-label="${t('actions')}" class="actions">${action(page, path, t('approveLabel', { name: e.merchant.name }), t('approve'), false)} ${action(page, `${path}/reject`, t('rejectLabel', { name: e.merchant.name }), t('reject'), true)}</td></tr>`;
  })}</tbody></table></div>`;
}

function rejectedTable(t: T, page: ConsolePage, entries: ApprovalEntry[]): SafeHtml {
  return html`<div class="table-wrap"><table>
<thead><tr><th>${t('signedUp')}</th><th>${t('merchant')}</th><th>${t('nmid')}</th><th>${t('rejectedAt')}</th><th>${t('actions')}</th></tr></thead>
<tbody>${entries.map((e) => {
    const path = `${QUEUE}/${encodeURIComponent(e.merchant.id)}`;
    const who = e.merchant.live_rejected_by
      ? html`<div class="muted">${t('rejectedBy', { who: e.merchant.live_rejected_by.replace(/^user:/, '') })}</div>`
      : '';
    return html`<tr><td data-label="${t('signedUp')}">${signedUpCell(t, page, e)}</td><td data-label="${t('merchant')}">${merchantCell(e)}</td>
<td data-label="${t('nmid')}">${nmidCell(t, e)}</td><td data-label="${t('rejectedAt')}">${formatTime(e.merchant.live_rejected_at!, page.lang)}${who}</td>
<td data-label="${t('actions')}" class="actions">${action(page, `${path}/ask-again`, t('askAgainLabel', { name: e.merchant.name }), t('askAgain'), false)} ${action(page, path, t('approveLabel', { name: e.merchant.name }), t('approve'), true)}</td></tr>`;
  })}</tbody></table></div>`;
}
