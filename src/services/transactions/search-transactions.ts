// The console's transaction list and its CSV export: the viewer's transactions, filtered and searched,
// newest first, a page at a time by a (created_at, id) cursor.
import { AppError } from '../../domain/errors.js';
import { createdRange, type TransactionFilters } from '../../domain/transaction-filters.js';
import { merchantExists } from '../../storage/queries/merchants.js';
import { readPaymentsByIds, searchTransactionPage, type TransactionSearchQuery } from '../../storage/queries/transactions.js';
import type { PaymentsTable, TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { canSeeMerchant, merchantScope, type Viewer } from '../users/viewer.js';
import type { TransactionWithPayment } from './get-transaction.js';
import { decodeCursor, encodeCursor } from './list-transactions.js';

export const PAGE_SIZE = 50;
export const EXPORT_PAGE_SIZE = 500;

/** Which page: the first (newest), the one older than a cursor, or the one newer than a cursor. */
export type PageCursor = { older: string } | { newer: string } | null;

export interface TransactionSearchPage {
  items: TransactionWithPayment[];
  /** Cursors of the neighbouring pages, null where there is none. */
  older: string | null;
  newer: string | null;
}

/** The merchants the query may read: the viewer's, or the one filtered on if the viewer may see it. */
async function merchantsOf(deps: Deps, viewer: Viewer, merchantId: string | null): Promise<readonly string[] | null> {
  if (merchantId === null) return merchantScope(viewer);
  // A merchant the viewer may not see answers exactly as one that does not exist.
  if (!canSeeMerchant(viewer, merchantId) || !(await merchantExists(deps.db, merchantId))) {
    throw new AppError('merchant_not_found', 'no such merchant', { param: 'merchant' });
  }
  return [merchantId];
}

function baseQuery(filters: TransactionFilters, merchants: readonly string[] | null, now: number): Omit<TransactionSearchQuery, 'cursor' | 'limit'> {
  const range = createdRange(filters);
  return {
    merchants,
    mode: filters.mode,
    status: filters.status,
    now,
    createdFrom: range.from,
    createdBefore: range.before,
    search: filters.search,
  };
}

async function withPayments(deps: Deps, rows: TransactionsTable[]): Promise<TransactionWithPayment[]> {
  const ids = rows.map((r) => r.payment_id).filter((id): id is string => id !== null);
  const payments = new Map<string, PaymentsTable>();
  if (ids.length > 0) for (const p of await readPaymentsByIds(deps.db, ids)) payments.set(p.id, p);
  return rows.map((transaction) => ({ transaction, payment: transaction.payment_id === null ? null : (payments.get(transaction.payment_id) ?? null) }));
}

/** One page of the list. A cursor this service did not make is an `invalid_parameter`. */
export async function searchTransactions(deps: Deps, viewer: Viewer, filters: TransactionFilters, cursor: PageCursor, pageSize = PAGE_SIZE): Promise<TransactionSearchPage> {
  const merchants = await merchantsOf(deps, viewer, filters.merchantId);
  const at = cursor === null ? null : 'older' in cursor ? { ...decodeCursor(cursor.older), toward: 'older' as const } : { ...decodeCursor(cursor.newer), toward: 'newer' as const };
  // One row more than the page tells whether there is another page beyond it.
  const rows = await searchTransactionPage(deps.db, { ...baseQuery(filters, merchants, deps.now()), cursor: at, limit: pageSize + 1 });
  const beyond = rows.length > pageSize;
  const page = rows.slice(0, pageSize);
  if (at?.toward === 'newer') page.reverse();
  const first = page[0];
  const last = page[page.length - 1];
  const key = (r: TransactionsTable) => encodeCursor(r.created_at, r.id);
  // Coming from a neighbour, that neighbour is still there (an empty page links back by the same cursor).
  const cameFrom = cursor === null ? null : 'older' in cursor ? cursor.older : cursor.newer;
  let older: string | null;
  let newer: string | null;
  if (at === null) {
    older = beyond && last ? key(last) : null;
    newer = null;
  } else if (at.toward === 'older') {
    older = beyond && last ? key(last) : null;
    newer = first ? key(first) : cameFrom;
  } else {
    newer = beyond && first ? key(first) : null;
    older = last ? key(last) : cameFrom;
  }
  return { items: await withPayments(deps, page), older, newer };
}

/**
 * Every row the filters find, newest first, for the CSV export: read `pageSize` rows at a time by
 * cursor as `pages` is consumed, so a month of transactions never sits in memory at once. The merchant
 * filter is checked before anything is read, so a refusal can still be an error page. `asOf` is the
 * moment the status filter and the statuses shown are taken at, one for the whole export.
 */
export async function exportTransactions(
  deps: Deps,
  viewer: Viewer,
  filters: TransactionFilters,
  pageSize = EXPORT_PAGE_SIZE,
): Promise<{ asOf: number; pages: AsyncIterable<TransactionWithPayment[]> }> {
  const merchants = await merchantsOf(deps, viewer, filters.merchantId);
  const asOf = deps.now();
  const base = baseQuery(filters, merchants, asOf);
  const pages = {
    async *[Symbol.asyncIterator]() {
      let cursor: TransactionSearchQuery['cursor'] = null;
      for (;;) {
        const rows = await searchTransactionPage(deps.db, { ...base, cursor, limit: pageSize });
        if (rows.length > 0) yield await withPayments(deps, rows);
        const last = rows[rows.length - 1];
        if (rows.length < pageSize || !last) return;
        cursor = { createdAt: last.created_at, id: last.id, toward: 'older' };
      }
    },
  };
  return { asOf, pages };
}
