// The console's reports: the daily report of a range of WIB days (issue 28, section 3), as a table with
// totals and as CSV. Operators see every merchant, a merchant's owner its own; a cashier never gets here
// (domain/viewer.ts: "reports" is not one of its sections).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  foldEmptyDays,
  monthSoFar,
  reportCsv,
  wibDayText,
  type DailyReportRow,
  type ReportLine,
  type Tally,
} from '../../../domain/daily-report.js';
import { AppError } from '../../../domain/errors.js';
import { html, type SafeHtml } from '../../../domain/html.js';
import { formatRupiah } from '../../../domain/money.js';
import { merchantScope } from '../../../domain/viewer.js';
import { translator } from '../../../presentation/messages.js';
import { modeText } from '../../../presentation/shared-texts.js';
import { sourceNamesOf } from '../../../services/sources/source-names.js';
import { sourceLabel } from '../source-label.js';
import type { Deps } from '../../../services/deps.js';
import { listVisibleMerchants } from '../../../services/merchants/list-visible-merchants.js';
import { cashierEmails } from '../../../services/reports/cashier-emails.js';
import { dailyReport, type DailyReport } from '../../../services/reports/daily-report.js';
import { pageSchema, Query, Text } from '../../forms.js';
import { consolePage, type ConsolePage } from '../context.js';
import { withQuery } from './transactions.js';
import { words } from './reports.words.js';

const ReportQuery = Query({ from: Text(), to: Text(), merchant: Text(), mode: Text() });
type ReportQuery = Static<typeof ReportQuery>;

export async function reportRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/reports', { schema: pageSchema({ querystring: ReportQuery }) }, (request, reply) =>
    reportPage(deps, consolePage(request, reply), request.query),
  );
  app.get('/reports.csv', { schema: pageSchema({ querystring: ReportQuery }) }, async (request, reply) => {
    const page = consolePage(request, reply);
    const report = await dailyReport(deps, merchantScope(page.viewer), input(deps, request.query));
    return reply
      .header('Content-Type', 'text/csv; charset=utf-8')
      .header(
        'Content-Disposition',
        `attachment; filename="daily-report-${report.mode}-${report.from}-${report.to}.csv"`,
      )
      .send(reportCsv(report.rows));
  });
}

/** The query as the service takes it; the range defaults to this WIB month so far. */
function input(deps: Deps, query: ReportQuery) {
  const month = monthSoFar(deps.now());
  return {
    from: query.from || wibDayText(month.fromDay),
    to: query.to || wibDayText(month.toDay),
    merchantId: query.merchant || null,
    mode: query.mode ?? 'live',
  };
}

async function reportPage(deps: Deps, page: ConsolePage, query: ReportQuery): Promise<FastifyReply> {
  const t = translator(words, page.lang);
  const asked = input(deps, query);
  const merchants = await listVisibleMerchants(deps, page.viewer);
  let report: DailyReport | null = null;
  let badRange = false;
  try {
    report = await dailyReport(deps, merchantScope(page.viewer), asked);
  } catch (err) {
    // A bad range or mode is said on the page with the form kept; another merchant is a 404 (thrown on).
    if (!(err instanceof AppError) || err.code !== 'invalid_parameter') throw err;
    badRange = true;
  }
  const cashiers = report
    ? await cashierEmails(deps, Object.keys(report.totals.by_cashier))
    : new Map<string, string>();
  const sourceNames = report
    ? await sourceNamesOf(deps, Object.keys(report.totals.by_source))
    : new Map<string, string>();
  const showMerchant = merchants.length > 1 && asked.merchantId === null;
  const merchantName = new Map(merchants.map((m) => [m.id, m.name]));
  const selected = (on: boolean) => (on ? html` selected` : '');
  const mode = asked.mode === 'test' ? 'test' : 'live';
  const csvLink = withQuery('/dashboard/reports.csv', [
    ['from', asked.from],
    ['to', asked.to],
    ...(asked.merchantId ? ([['merchant', asked.merchantId]] as Array<[string, string]>) : []),
    ['mode', mode],
  ]);

  const form = html`<form method="get" action="/dashboard/reports" class="filters card">
<div><label for="report-from">${t('from')}</label><input id="report-from" name="from" type="date" value="${asked.from}"${badRange ? html` aria-invalid="true"` : ''}></div>
<div><label for="report-to">${t('to')}</label><input id="report-to" name="to" type="date" value="${asked.to}"${badRange ? html` aria-invalid="true"` : ''}></div>
${
  merchants.length > 1
    ? html`<div><label for="report-merchant">${t('merchant')}</label>
<select id="report-merchant" name="merchant"><option value="">${t('allMerchants')}</option>${merchants.map((m) => html`<option value="${m.id}"${selected(asked.merchantId === m.id)}>${m.name}</option>`)}</select></div>`
    : ''
}
<div><label for="report-mode">${t('mode')}</label>
<select id="report-mode" name="mode"><option value="live"${selected(mode === 'live')}>${modeText('live', page.lang)}</option><option value="test"${selected(mode === 'test')}>${modeText('test', page.lang)}</option></select></div>
<div class="actions"><button type="submit">${t('show')}</button></div>
</form>`;

  // The money received first, then the one figure each payment of it is in, then the refunds (docs/payments.md, "Reports").
  const columns = [
    'received',
    'paidCount',
    'paidSum',
    'receivedOpen',
    'unmatchedCount',
    'unmatchedSum',
    'returned',
    'refunded',
  ] as const satisfies ReadonlyArray<Parameters<typeof t>[0]>;
  const cells = (
    r: Omit<DailyReportRow, 'merchant_id' | 'day'>,
  ) => html`<td class="num money" data-label="${t('received')}">${formatRupiah(r.received_sum)}</td>
<td class="num" data-label="${t('paidCount')}">${r.paid_count}</td>
<td class="num money" data-label="${t('paidSum')}">${formatRupiah(r.paid_sum)}</td>
<td class="num money" data-label="${t('receivedOpen')}">${formatRupiah(r.received_open_sum)}</td>
<td class="num" data-label="${t('unmatchedCount')}">${r.unmatched_count}</td>
<td class="num money" data-label="${t('unmatchedSum')}">${formatRupiah(r.unmatched_sum)}</td>
<td class="num money" data-label="${t('returned')}">${formatRupiah(r.returned_sum)}</td>
<td class="num money" data-label="${t('refunded')}">${formatRupiah(r.refunded_sum)}</td>`;
  const breakdown = (
    caption: string,
    label: string,
    tallies: Record<string, Tally>,
    name: (k: string) => string | SafeHtml,
  ) => {
    const keys = Object.keys(tallies).sort();
    if (keys.length === 0) return '';
    return html`<div class="table-wrap"><table><caption>${caption}</caption>
<thead><tr><th>${label}</th><th class="num">${t('count')}</th><th class="num">${t('amount')}</th></tr></thead>
<tbody>${keys.map((k) => html`<tr><td data-label="${label}" class="mono">${name(k)}</td><td class="num" data-label="${t('count')}">${tallies[k]!.count}</td><td class="num money" data-label="${t('amount')}">${formatRupiah(tallies[k]!.sum)}</td></tr>`)}</tbody></table></div>`;
  };

  const merchantCell = (id: string) =>
    showMerchant ? html`<td data-label="${t('merchant')}">${merchantName.get(id) ?? id}</td>` : '';
  // Days without any figure are folded, a run of them one line: on a phone each row is a card.
  const line = (l: ReportLine) =>
    l.kind === 'day'
      ? html`<tr><td data-label="${t('day')}">${l.row.day}</td>${merchantCell(l.row.merchant_id)}
${cells(l.row)}</tr>`
      : html`<tr class="empty-days"><td data-label="${t('day')}">${l.days === 1 ? l.from : `${l.from} – ${l.to}`}</td>${merchantCell(l.merchant_id)}<td colspan="${columns.length}" class="muted" data-label="${t('received')}">${l.days === 1 ? t('noPayments') : t('noPaymentsDays', { days: l.days })}</td></tr>`;
  const table = report
    ? html`<div class="table-wrap"><table class="report"><caption>${t('figures')}: ${report.from} – ${report.to}, ${modeText(report.mode, page.lang)}</caption>
<thead><tr><th>${t('day')}</th>${showMerchant ? html`<th>${t('merchant')}</th>` : ''}${columns.map((c) => html`<th class="num">${t(c)}</th>`)}</tr></thead>
<tbody>${foldEmptyDays(report.rows).map(line)}</tbody>
<tfoot><tr><th scope="row" data-label="${t('day')}"${showMerchant ? html` colspan="2"` : ''}>${t('total')}</th>${cells(report.totals)}</tr></tfoot></table></div>
${breakdown(t('bySource'), t('source'), report.totals.by_source, (k) => sourceLabel(sourceNames, k))}
${breakdown(t('byCashier'), t('cashier'), report.totals.by_cashier, (k) => cashiers.get(k) ?? k)}`
    : html``;

  const body = html`<div class="heading"><h1>${t('title')}</h1>${report ? html`<a class="button secondary" href="${csvLink}" download>${t('download')}</a>` : ''}</div>
<p class="muted">${t('intro')}</p>
${badRange ? html`<p class="notice error" role="alert">${t('badRange')}</p>` : ''}
${form}
${table}`;
  return page.send(t('title'), 'reports', body, badRange ? 400 : 200);
}
