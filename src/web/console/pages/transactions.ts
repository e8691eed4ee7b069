// The console's transactions: the filtered list (this file), its CSV export (transactions-csv.ts) and
// one transaction's page with its timeline and actions (transaction.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { html } from '../../../domain/html.js';
import { formatRupiah } from '../../../domain/money.js';
import { transactionRefundStatus } from '../../../domain/refund.js';
import { effectiveStatus } from '../../../domain/transaction.js';
import {
  filterParams,
  parseTransactionFilters,
  STATUSES,
  type FilterProblem,
} from '../../../domain/transaction-filters.js';
import { formatTime } from '../../../presentation/format.js';
import { translator } from '../../../presentation/messages.js';
import { modeText, statusText } from '../../../presentation/shared-texts.js';
import type { Deps } from '../../../services/deps.js';
import { listVisibleMerchants } from '../../../services/merchants/list-visible-merchants.js';
import {
  searchTransactions,
  type PageCursor,
  type TransactionSearchPage,
} from '../../../services/transactions/search-transactions.js';
import { pageSchema, Query, Text } from '../../forms.js';
import { consolePage, type ConsolePage } from '../context.js';
import { registerTransactionPage } from './transaction.js';
import { statusBadge } from './transaction-status.js';
import { exportCsv, FILTERS, FilterQuery } from './transactions-csv.js';
import { words } from './transactions.words.js';

type Key = keyof typeof words.en;

const PROBLEM_TEXT: Record<FilterProblem, Key> = {
  status: 'badStatus',
  mode: 'badMode',
  from: 'badFrom',
  to: 'badTo',
  range: 'badRange',
  search: 'badSearch',
};

/** The list's query: the filters, and the cursor of the page to show. */
const ListQuery = Query({ ...FILTERS, older: Text(), newer: Text() });
type ListQuery = Static<typeof ListQuery>;

/** The transactions section's routes (paths relative to /dashboard). */
export async function transactionRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/transactions', { schema: pageSchema({ querystring: ListQuery }) }, (request, reply) =>
    listPage(deps, consolePage(request, reply), request.query),
  );
  app.get('/transactions.csv', { schema: pageSchema({ querystring: FilterQuery }) }, (request, reply) =>
    exportCsv(deps, consolePage(request, reply), request.query, request.url, reply),
  );
  registerTransactionPage(scope, deps);
}

/** The query string's cursor: `older` or `newer` (never both; `older` wins). */
function cursorOf(query: ListQuery): PageCursor {
  if (query.older) return { older: query.older };
  if (query.newer) return { newer: query.newer };
  return null;
}

/** A console URL with these query pairs. */
export function withQuery(path: string, pairs: Array<[string, string]>): string {
  const qs = new URLSearchParams(pairs).toString();
  return qs === '' ? path : `${path}?${qs}`;
}

async function listPage(deps: Deps, page: ConsolePage, query: ListQuery): Promise<FastifyReply> {
  const t = translator(words, page.lang);
  const { filters, problems } = parseTransactionFilters(query);
  const merchants = await listVisibleMerchants(deps, page.viewer);
  let result: TransactionSearchPage | null = null;
  let staleLink = false;
  if (problems.length === 0) {
    try {
      result = await searchTransactions(deps, page.viewer, filters, cursorOf(query));
    } catch (err) {
      // A page link this console did not make (or a mangled one): say so, and keep the filters.
      if (!(err instanceof AppError) || err.param !== 'cursor') throw err;
      staleLink = true;
    }
  }
  const now = deps.now();
  const showMerchant = merchants.length > 1;
  const merchantName = new Map(merchants.map((m) => [m.id, m.name]));
  const selected = (on: boolean) => (on ? html` selected` : '');
  const params = filterParams(filters);
  const filtered = params.length > 0;

  const form = html`<form method="get" action="/dashboard/transactions" class="filters card" role="search">
<div class="wide"><label for="tx-q">${t('search')}</label>
<input id="tx-q" name="q" type="search" maxlength="254" value="${query.q ?? ''}" aria-describedby="tx-q-hint"${problems.includes('search') ? html` aria-invalid="true"` : ''}>
<div id="tx-q-hint" class="hint muted">${t('searchHint')}</div></div>
<div><label for="tx-status">${t('status')}</label>
<select id="tx-status" name="status"><option value="">${t('anyStatus')}</option>${STATUSES.map((s) => html`<option value="${s}"${selected(filters.status === s)}>${statusText(s, page.lang)}</option>`)}</select></div>
${
  showMerchant
    ? html`<div><label for="tx-merchant">${t('merchant')}</label>
<select id="tx-merchant" name="merchant"><option value="">${t('allMerchants')}</option>${merchants.map((m) => html`<option value="${m.id}"${selected(filters.merchantId === m.id)}>${m.name}</option>`)}</select></div>`
    : ''
}
<div><label for="tx-mode">${t('mode')}</label>
<select id="tx-mode" name="mode"><option value="">${t('bothModes')}</option><option value="test"${selected(filters.mode === 'test')}>${modeText('test', page.lang)}</option><option value="live"${selected(filters.mode === 'live')}>${modeText('live', page.lang)}</option></select></div>
<div><label for="tx-from">${t('from')}</label><input id="tx-from" name="from" type="date" value="${query.from ?? ''}"${problems.includes('from') || problems.includes('range') ? html` aria-invalid="true"` : ''}></div>
<div><label for="tx-to">${t('to')}</label><input id="tx-to" name="to" type="date" value="${query.to ?? ''}"${problems.includes('to') || problems.includes('range') ? html` aria-invalid="true"` : ''}></div>
<div class="actions"><button type="submit">${t('apply')}</button>${filtered ? html` <a class="button secondary" href="/dashboard/transactions">${t('clear')}</a>` : ''}</div>
</form>`;

  const notices = [...problems.map((p) => t(PROBLEM_TEXT[p])), ...(staleLink ? [t('badCursor')] : [])].map(
    (text) => html`<p class="notice error" role="alert">${text}</p>`,
  );
  let list = html``;
  if (result) {
    const rows = result.items.map(({ transaction: tx }) => {
      const status = effectiveStatus(tx, now);
      // On a phone the row keeps three columns: the transaction (with its ref and time under it), its
      // status and its total.
      return html`<tr>
<td class="hide-narrow" data-label="${t('created')}">${formatTime(tx.created_at, page.lang)}</td>
<td data-label="${t('trxid')}"><a class="mono" href="/dashboard/transactions/${tx.id}">${tx.id}</a><div class="show-narrow muted">${tx.ref ? html`<span class="mono">${tx.ref}</span><br>` : ''}${formatTime(tx.created_at, page.lang)}</div></td>
${showMerchant ? html`<td class="hide-narrow" data-label="${t('merchant')}">${merchantName.get(tx.merchant_id) ?? tx.merchant_id}</td>` : ''}
<td class="hide-narrow" data-label="${t('mode')}">${modeText(tx.mode, page.lang)}</td>
<td data-label="${t('status')}">${statusBadge(status, tx.paid_late === 1, page.lang, transactionRefundStatus(tx))}</td>
<td class="num money" data-label="${t('total')}">${formatRupiah(tx.total_amount)}</td>
<td class="mono hide-narrow" data-label="${t('ref')}">${tx.ref ?? ''}</td>
<td class="mono hide-narrow" data-label="${t('email')}">${tx.email ?? ''}</td>
</tr>`;
    });
    const pager = [
      result.newer
        ? html`<a class="button secondary" rel="prev" href="${withQuery('/dashboard/transactions', [...params, ['newer', result.newer]])}">← ${t('newer')}</a>`
        : '',
      result.older
        ? html`<a class="button secondary" rel="next" href="${withQuery('/dashboard/transactions', [...params, ['older', result.older]])}">${t('older')} →</a>`
        : '',
    ];
    list =
      result.items.length === 0
        ? html`<p class="card muted">${filtered ? t('none') : t('noneYet')}</p>`
        : html`<div class="table-wrap"><table>
<thead><tr><th class="hide-narrow">${t('created')}</th><th>${t('trxid')}</th>${showMerchant ? html`<th class="hide-narrow">${t('merchant')}</th>` : ''}<th class="hide-narrow">${t('mode')}</th><th>${t('status')}</th><th class="num">${t('total')}</th><th class="hide-narrow">${t('ref')}</th><th class="hide-narrow">${t('email')}</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
    if (result.newer || result.older) list = html`${list}<nav class="pager" aria-label="${t('pages')}">${pager}</nav>`;
  }

  const body = html`<div class="heading"><h1>${t('title')}</h1>${result ? html`<a class="button secondary" href="${withQuery('/dashboard/transactions.csv', params)}" download>${t('export')}</a>` : ''}</div>
${notices}
${form}
${list}`;
  return page.send(t('title'), 'transactions', body, problems.length > 0 || staleLink ? 400 : 200);
}
