// What the console's transaction list (search-transactions.ts) and its CSV export (export-transactions.ts)
// both read: the viewer's transactions, filtered and searched, newest first, by a (created_at, id) cursor.
//
// The only index in that order is per merchant and mode (transactions_list). So the rows are read as one
// stream per merchant and mode, each a range of that index, and merged by the list and the export: a
// page costs a few short index reads instead of sorting every row in scope (measured on SQLite with 200,000 rows over five
// merchants: an operator's first page took 0.5 s as one query and takes 7 ms merged; an export of a
// month's 100,000 rows took 60 s as one query per page and takes 2.5 s merged). Past MAX_STREAMS
// streams it is one query.
import { AppError } from '../../domain/errors.js';
import type { Mode } from '../../domain/records.js';
import { createdRange, type TransactionFilters } from '../../domain/transaction-filters.js';
import { merchantExists, merchantNames } from '../../storage/queries/merchants.js';
import { readPaymentsByIds, type TransactionSearchQuery } from '../../storage/queries/transactions.js';
import type { PaymentsTable, TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { canSeeMerchant, isCashier, merchantScope, type Viewer } from '../../domain/viewer.js';
import { wibDayStart } from '../../domain/wib.js';
import type { TransactionWithPayment } from './transaction-with-payment.js';

/** More merchant-and-mode streams than this are read as one query (a sort of every row in scope). */
const MAX_STREAMS = 64;

/** One stream: the filters of one merchant and mode (or of all, when there are many), without a page. */
export type StreamQuery = Omit<TransactionSearchQuery, 'cursor' | 'limit'>;
export type StreamCursor = TransactionSearchQuery['cursor'];

/** Newest first: created_at, then id, both descending (ids compared as the storage query does, bytewise). */
export function newestFirst(a: TransactionsTable, b: TransactionsTable): number {
  return b.created_at - a.created_at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
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

/** The filters as queries: one per merchant and mode in scope (or one for all, when there are many). */
export async function streamsOf(
  deps: Deps,
  viewer: Viewer,
  filters: TransactionFilters,
  now: number,
): Promise<StreamQuery[]> {
  const merchants = await merchantsOf(deps, viewer, filters.merchantId);
  const range = createdRange(filters);
  // A cashier sees today's transactions only (WIB), whatever days it asks for.
  const from = isCashier(viewer) ? Math.max(range.from ?? 0, wibDayStart(now)) : range.from;
  const base: StreamQuery = {
    merchants,
    mode: filters.mode,
    status: filters.status,
    now,
    createdFrom: from,
    createdBy: filters.cashier ?? null,
    createdBefore: range.before,
    search: filters.search,
  };
  const ids = merchants ?? (await merchantNames(deps.db, null)).map((m) => m.id);
  const modes: Mode[] = filters.mode === null ? ['live', 'test'] : [filters.mode];
  if (ids.length * modes.length > MAX_STREAMS) return [base];
  return ids.flatMap((id) => modes.map((mode) => ({ ...base, merchants: [id], mode })));
}

export async function withPayments(deps: Deps, rows: TransactionsTable[]): Promise<TransactionWithPayment[]> {
  const ids = rows.map((r) => r.payment_id).filter((id): id is string => id !== null);
  const payments = new Map<string, PaymentsTable>();
  if (ids.length > 0) for (const p of await readPaymentsByIds(deps.db, ids)) payments.set(p.id, p);
  return rows.map((transaction) => ({
    transaction,
    payment: transaction.payment_id === null ? null : (payments.get(transaction.payment_id) ?? null),
  }));
}
