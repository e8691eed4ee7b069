import type { FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../../../domain/html.js';
import type { Mode } from '../../../domain/records.js';
import { sourceKind } from '../../../payment-sources/kinds.js';
import { listSources } from '../../../services/sources/list-sources.js';
import type { Deps } from '../../../services/deps.js';
import { CHART_DAYS } from '../../../domain/overview-chart.js';
import { getOverview } from '../../../services/overview/get-overview.js';
import { lastReports } from '../../../services/overview/last-reports.js';
import { overviewMode } from '../../../services/overview/overview-mode.js';
import { liveApprovalCount } from '../../../services/merchants/live-approval-count.js';
import { quotaUsage } from '../../../services/merchants/quota-usage.js';
import { canSeeMerchant } from '../../../domain/viewer.js';
import { barChart } from '../chart.js';
import { consolePage } from '../context.js';
import { translator, type Translate } from '../../../presentation/messages.js';
import { modeText } from '../../../presentation/shared-texts.js';
import { words } from './overview.words.js';
import { formatTime, formatDay } from '../../../presentation/format.js';
import { formatRupiah } from '../../../domain/money.js';
import { renderNotice, takeNotice } from '../notice.js';

/** The query the overview reads (the front door's route declares it, with the login form's). */
export interface OverviewQuery {
  mode?: string | undefined;
}

/** /dashboard for a logged-in user. */
export async function overviewPage(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
  query: OverviewQuery,
): Promise<FastifyReply> {
  const page = consolePage(request, reply);
  const t = translator(words, page.lang);
  const shown = await overviewMode(deps, page.viewer, query.mode);
  const mode: Mode = shown.mode;
  const overview = await getOverview(deps, page.viewer, mode);
  const waiting = await liveApprovalCount(deps, page.viewer);
  const notice = takeNotice(request, reply);
  // A merchant user sees its use of each of its merchants' daily quotas (operators set them).
  const usages =
    page.viewer.role === 'merchant'
      ? (
          await Promise.all(page.viewer.merchantIds.map(async (id) => ({ id, usage: await quotaUsage(deps, id) })))
        ).filter((u) => u.usage !== null)
      : [];
  const sources = (await listSources(deps)).filter((s) => canSeeMerchant(page.viewer, s.merchant_id));
  const reports = await lastReports(
    deps,
    sources.map((s) => s.id),
  );
  const when = (ms: number | null | undefined) => (ms ? formatTime(ms, page.lang) : t('never'));
  const dayLabel = (ms: number) => formatDay(ms, page.lang);
  const chart = barChart(
    overview.daily.map((d, i) => ({
      value: d.sum,
      label: t('chartBar', { day: dayLabel(d.dayStart), count: d.count, sum: formatRupiah(d.sum) }),
      // A tick a week, the last one under today.
      tick: i % 7 === (CHART_DAYS - 1) % 7 ? dayLabel(d.dayStart) : null,
      cells: [dayLabel(d.dayStart), String(d.count), formatRupiah(d.sum)],
    })),
    {
      caption: t('chart'),
      empty: mode === 'live' ? t('chartEmptyLive') : t('chartEmptyTest'),
      table: t('chartTable'),
      columns: [t('chartDay'), t('chartCount'), t('chartSum')],
    },
    formatRupiah,
  );
  const stat = (label: string, figures: { count: number; sum: number }) =>
    html`<div class="card stat"><div class="label">${label}</div><div class="value">${formatRupiah(figures.sum)}</div><div class="muted">${t('payments', { count: figures.count })}</div></div>`;

  // The queue itself is a page of its own (approvals.ts); the overview says it is not empty.
  const approvals =
    waiting === 0
      ? ''
      : html`<section class="card"><h2>${t('approvals')}</h2><p>${t('approvalsWaiting', { count: waiting })}</p><p><a href="/dashboard/approvals">${t('openQueue')}</a></p></section>`;
  // A self-service user who has just confirmed has no merchant: the overview's figures are all zero, so it
  // starts with what to do first.
  const step = (href: string, text: string, hint: string) =>
    html`<li><a href="${href}">${text}</a><div class="muted">${hint}</div></li>`;
  const firstSteps =
    page.viewer.role === 'merchant' && page.viewer.merchantIds.length === 0
      ? html`<section class="card first-steps" aria-labelledby="first-steps"><h2 id="first-steps">${t('firstSteps')}</h2><p class="muted">${t('firstStepsIntro')}</p>
<ol>${step('/dashboard/merchants/new', t('stepMerchant'), t('stepMerchantHint'))}${step('/dashboard/keys', t('stepKey'), t('stepKeyHint'))}${step('/docs', t('stepPay'), t('stepPayHint'))}</ol></section>`
      : '';
  const body = html`<h1>${t('title')}</h1>
${renderNotice(notice)}
${firstSteps}
${approvals}
${
  usages.length === 0
    ? ''
    : html`<div class="grid">${usages.map(
        (u) =>
          html`<div class="card stat"><div class="label">${t('usage')}${usages.length > 1 ? html` <span class="mono">${u.id}</span>` : ''}</div><div class="value">${t('usageOf', { used: u.usage!.used, limit: u.usage!.limit })}</div><div class="muted">${t('usageReset')}</div></div>`,
      )}</div>`
}
<form method="get" action="/dashboard" class="filters card">
<div><label for="overview-mode">${t('mode')}</label>
<select id="overview-mode" name="mode" data-autosubmit>
<option value="live"${mode === 'live' ? html` selected` : ''}>${modeText('live', page.lang)}</option>
<option value="test"${mode === 'test' ? html` selected` : ''}>${modeText('test', page.lang)}</option>
</select></div>
<div><button type="submit" class="secondary">${t('show')}</button></div>
</form>
${modeNote(t, shown.chosen, mode)}
<div class="grid">
${stat(t('today'), overview.today)}
${stat(t('week'), overview.last7Days)}
${stat(t('month'), overview.last30Days)}
<div class="card stat"><div class="label">${t('pending')}</div><div class="value">${overview.pending}</div><a href="/dashboard/transactions?status=pending&amp;mode=${mode}">${t('review')}</a></div>
<div class="card stat"><div class="label">${t('unmatched')}</div><div class="value">${overview.unmatched}</div><a href="/dashboard/payments?status=unmatched&amp;mode=${mode}">${t('review')}</a></div>
</div>
<section class="card"><h2>${t('chart')}</h2>${chart}</section>
<section><h2>${t('sources')}</h2>
${
  sources.length === 0
    ? html`<p class="card muted">${t('noSources')}</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th>${t('source')}</th><th class="hide-narrow">${t('merchant')}</th><th>${t('type')}</th><th>${t('state')}</th><th>${t('lastReport')}</th><th class="hide-narrow">${t('lastPoll')}</th><th class="num">${t('failures')}</th></tr></thead>
<tbody>${sources.map(
        (
          s,
        ) => html`<tr><td class="mono" data-label="${t('source')}">${s.id}</td><td class="mono hide-narrow" data-label="${t('merchant')}">${s.merchant_id}</td><td data-label="${t('type')}">${s.type}</td>
<td data-label="${t('state')}"><span class="badge ${s.enabled ? 'ok' : 'disabled'}">${s.enabled ? t('enabled') : t('disabled')}</span></td>
<td data-label="${t('lastReport')}">${when(reports.get(s.id))}</td><td class="hide-narrow" data-label="${t('lastPoll')}">${sourceKind(s.type).polled ? when(s.last_success_at ? Date.parse(s.last_success_at) : null) : '–'}</td>
<td class="num" data-label="${t('failures')}">${s.failures ?? 0}</td></tr>`,
      )}</tbody></table></div>`
}
</section>
<section><h2>${t('endpoints')}</h2>
${
  overview.endpoints === 0
    ? html`<p class="card muted">${t('noEndpoints')} <a href="/dashboard/webhooks#add-endpoint-title">${t('addEndpoint')}</a></p>`
    : overview.failingEndpoints.length === 0
      ? html`<p class="card muted">${t('noFailing')}</p>`
      : html`<div class="table-wrap"><table>
<thead><tr><th>${t('url')}</th><th class="hide-narrow">${t('merchant')}</th><th>${t('state')}</th><th class="num">${t('failures')}</th><th>${t('since')}</th></tr></thead>
<tbody>${overview.failingEndpoints.map(
          (
            e,
          ) => html`<tr><td class="mono url" data-label="${t('url')}"><a href="/dashboard/webhooks/${e.id}">${e.url}</a></td><td class="mono hide-narrow" data-label="${t('merchant')}">${e.merchantId}</td>
<td data-label="${t('state')}"><span class="badge ${e.status}">${e.status}</span></td><td class="num" data-label="${t('failures')}">${e.consecutiveFailures}</td><td data-label="${t('since')}">${when(e.since)}</td></tr>`,
        )}</tbody></table></div>`
}
</section>`;
  return page.send(t('title'), 'overview', body);
}

/**
 * Which mode the figures are, in words, with a link to the other: a newcomer shown the sandbox by default
 * must not take it for real money, and an operator used to live must see why live is not shown.
 */
function modeNote(
  t: Translate<'showingLive' | 'showingTest' | 'liveEmpty' | 'showLive' | 'showTest'>,
  chosen: 'asked' | 'default',
  mode: Mode,
) {
  const other: Mode = mode === 'live' ? 'test' : 'live';
  const why = chosen === 'default' && mode === 'test' ? html` ${t('liveEmpty')}` : '';
  return html`<p class="mode-note card">${mode === 'live' ? t('showingLive') : t('showingTest')}${why} <a href="/dashboard?mode=${other}">${other === 'live' ? t('showLive') : t('showTest')}</a></p>`;
}
