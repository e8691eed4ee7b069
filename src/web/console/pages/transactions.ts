// The console's transactions: the filtered list (this file), its CSV export (transactions-csv.ts) and
// one transaction's page with its timeline and actions (transaction.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { html } from '../../../domain/html.js';
import { effectiveStatus } from '../../../domain/transaction.js';
import { filterParams, parseTransactionFilters, STATUSES, type FilterProblem } from '../../../domain/transaction-filters.js';
import type { Deps } from '../../../services/deps.js';
import { listVisibleMerchants } from '../../../services/merchants/list-visible-merchants.js';
import { searchTransactions, type PageCursor, type TransactionSearchPage } from '../../../services/transactions/search-transactions.js';
import { consolePage } from '../context.js';
import { defineMessages, rupiah, translator, wibTime } from '../i18n.js';
import { transactionPageRoutes } from './transaction.js';
import { statusBadge, statusName } from './transaction-status.js';
import { exportCsv } from './transactions-csv.js';

const words = defineMessages(
  {
    title: 'Transactions',
    search: 'Search',
    searchHint: 'Transaction id, ref, e-mail or total amount (10123 or Rp 10.123)',
    status: 'Status',
    anyStatus: 'Any status',
    merchant: 'Merchant',
    allMerchants: 'All merchants',
    mode: 'Mode',
    bothModes: 'Test and live',
    test: 'test',
    live: 'live',
    from: 'From (WIB)',
    to: 'To (WIB)',
    apply: 'Apply',
    clear: 'Clear',
    export: 'Export CSV',
    created: 'Created (WIB)',
    trxid: 'Transaction',
    total: 'Total',
    ref: 'Ref',
    email: 'E-mail',
    none: 'No transactions match these filters.',
    noneYet: 'No transactions yet.',
    older: 'Older',
    newer: 'Newer',
    pages: 'Pages',
    badStatus: 'Choose a status from the list.',
    badMode: 'Choose test or live.',
    badFrom: 'The start date is not a date (YYYY-MM-DD).',
    badTo: 'The end date is not a date (YYYY-MM-DD).',
    badRange: 'The start date is after the end date.',
    badSearch: 'Search for at most 254 characters, without control characters.',
    badCursor: 'This page link is not valid. Apply the filters again to start from the newest.',
  },
  {
    title: 'Transaksi',
    search: 'Cari',
    searchHint: 'Id transaksi, ref, email atau total (10123 atau Rp 10.123)',
    status: 'Status',
    anyStatus: 'Semua status',
    merchant: 'Merchant',
    allMerchants: 'Semua merchant',
    mode: 'Mode',
    bothModes: 'Uji dan live',
    test: 'uji',
    live: 'live',
    from: 'Dari (WIB)',
    to: 'Sampai (WIB)',
    apply: 'Terapkan',
    clear: 'Hapus filter',
    export: 'Ekspor CSV',
    created: 'Dibuat (WIB)',
    trxid: 'Transaksi',
    total: 'Total',
    ref: 'Ref',
    email: 'Email',
    none: 'Tidak ada transaksi yang cocok dengan filter ini.',
    noneYet: 'Belum ada transaksi.',
    older: 'Lebih lama',
    newer: 'Lebih baru',
    pages: 'Halaman',
    badStatus: 'Pilih status dari daftar.',
    badMode: 'Pilih uji atau live.',
    badFrom: 'Tanggal awal bukan tanggal (YYYY-MM-DD).',
    badTo: 'Tanggal akhir bukan tanggal (YYYY-MM-DD).',
    badRange: 'Tanggal awal setelah tanggal akhir.',
    badSearch: 'Cari paling banyak 254 karakter, tanpa karakter kontrol.',
    badCursor: 'Tautan halaman ini tidak berlaku. Terapkan filter lagi untuk mulai dari yang terbaru.',
  },
);
type Key = keyof typeof words.en;

const PROBLEM_TEXT: Record<FilterProblem, Key> = {
  status: 'badStatus',
  mode: 'badMode',
  from: 'badFrom',
  to: 'badTo',
  range: 'badRange',
  search: 'badSearch',
};

type Query = Record<string, string | undefined>;

/** The transactions section's routes (paths relative to /dashboard). */
export async function transactionRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  scope.get('/transactions', { schema: { hide: true } }, (request, reply) => listPage(deps, request, reply));
  scope.get('/transactions.csv', { schema: { hide: true } }, (request, reply) => exportCsv(deps, request, reply));
  transactionPageRoutes(scope, deps);
}

/** The query string's cursor: `older` or `newer` (never both; `older` wins). */
function cursorOf(query: Query): PageCursor {
  if (typeof query.older === 'string' && query.older !== '') return { older: query.older };
  if (typeof query.newer === 'string' && query.newer !== '') return { newer: query.newer };
  return null;
}

/** A console URL with these query pairs. */
export function withQuery(path: string, pairs: Array<[string, string]>): string {
  const qs = new URLSearchParams(pairs).toString();
  return qs === '' ? path : `${path}?${qs}`;
}

async function listPage(deps: Deps, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const page = consolePage(request, reply);
  const t = translator(words, page.lang);
  const query = request.query as Query;
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
  const raw = (name: string) => (typeof query[name] === 'string' ? query[name] : '');
  const showMerchant = merchants.length > 1;
  const merchantName = new Map(merchants.map((m) => [m.id, m.name]));
  const selected = (on: boolean) => (on ? html` selected` : '');
  const params = filterParams(filters);
  const filtered = params.length > 0;

  const form = html`<form method="get" action="/dashboard/transactions" class="filters card" role="search">
<div class="wide"><label for="tx-q">${t('search')}</label>
<input id="tx-q" name="q" type="search" maxlength="254" value="${raw('q')}" aria-describedby="tx-q-hint"${problems.includes('search') ? html` aria-invalid="true"` : ''}>
<div id="tx-q-hint" class="hint muted">${t('searchHint')}</div></div>
<div><label for="tx-status">${t('status')}</label>
<select id="tx-status" name="status"><option value="">${t('anyStatus')}</option>${STATUSES.map((s) => html`<option value="${s}"${selected(filters.status === s)}>${statusName(s, page.lang)}</option>`)}</select></div>
${
  showMerchant
    ? html`<div><label for="tx-merchant">${t('merchant')}</label>
<select id="tx-merchant" name="merchant"><option value="">${t('allMerchants')}</option>${merchants.map((m) => html`<option value="${m.id}"${selected(filters.merchantId === m.id)}>${m.name}</option>`)}</select></div>`
    : ''
}
<div><label for="tx-mode">${t('mode')}</label>
<select id="tx-mode" name="mode"><option value="">${t('bothModes')}</option><option value="test"${selected(filters.mode === 'test')}>${t('test')}</option><option value="live"${selected(filters.mode === 'live')}>${t('live')}</option></select></div>
<div><label for="tx-from">${t('from')}</label><input id="tx-from" name="from" type="date" value="${raw('from')}"${problems.includes('from') || problems.includes('range') ? html` aria-invalid="true"` : ''}></div>
<div><label for="tx-to">${t('to')}</label><input id="tx-to" name="to" type="date" value="${raw('to')}"${problems.includes('to') || problems.includes('range') ? html` aria-invalid="true"` : ''}></div>
<div class="actions"><button type="submit">${t('apply')}</button>${filtered ? html` <a class="button secondary" href="/dashboard/transactions">${t('clear')}</a>` : ''}</div>
</form>`;

  const notices = [...problems.map((p) => t(PROBLEM_TEXT[p])), ...(staleLink ? [t('badCursor')] : [])].map((text) => html`<p class="notice error" role="alert">${text}</p>`);
  let list = html``;
  if (result) {
    const rows = result.items.map(({ transaction: tx }) => {
      const status = effectiveStatus(tx, now);
      // On a phone the row keeps three columns: the transaction (with its ref and time under it), its
      // status and its total.
      return html`<tr>
<td class="hide-narrow">${wibTime(tx.created_at, page.lang)}</td>
<td><a class="mono" href="/dashboard/transactions/${tx.id}">${tx.id}</a><div class="show-narrow muted">${tx.ref ? html`<span class="mono">${tx.ref}</span><br>` : ''}${wibTime(tx.created_at, page.lang)}</div></td>
${showMerchant ? html`<td class="hide-narrow">${merchantName.get(tx.merchant_id) ?? tx.merchant_id}</td>` : ''}
<td class="hide-narrow">${t(tx.mode)}</td>
<td>${statusBadge(status, tx.paid_late === 1, page.lang)}</td>
<td class="num money">${rupiah(tx.total_amount)}</td>
<td class="mono hide-narrow">${tx.ref ?? ''}</td>
<td class="mono hide-narrow">${tx.email ?? ''}</td>
</tr>`;
    });
    const pager = [
      result.newer ? html`<a class="button secondary" rel="prev" href="${withQuery('/dashboard/transactions', [...params, ['newer', result.newer]])}">← ${t('newer')}</a>` : '',
      result.older ? html`<a class="button secondary" rel="next" href="${withQuery('/dashboard/transactions', [...params, ['older', result.older]])}">${t('older')} →</a>` : '',
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
