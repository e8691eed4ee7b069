// The console's transaction list: one page of the viewer's transactions, filtered and searched, newest
// first, by a (created_at, id) cursor, merged from one stream per merchant and mode (transaction-streams.ts).
import type { TransactionFilters } from '../../domain/transaction-filters.js';
import { decodeCursor, encodeCursor } from '../../domain/transaction-cursor.js';
import { searchTransactionPage } from '../../storage/queries/transactions.js';
import type { TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import type { Viewer } from '../../domain/viewer.js';
import { type StreamCursor, newestFirst, type StreamQuery, streamsOf, withPayments } from './transaction-streams.js';
import type { TransactionWithPayment } from './transaction-with-payment.js';

export const PAGE_SIZE = 50;

/** Which page: the first (newest), the one older than a cursor, or the one newer than a cursor. */
export type PageCursor = { older: string } | { newer: string } | null;

export interface TransactionSearchPage {
  items: TransactionWithPayment[];
  /** Cursors of the neighbouring pages, null where there is none. */
  older: string | null;
  newer: string | null;
}

/** Up to `limit` rows past the cursor over all streams, in the cursor's direction (newest first without one). */
async function readMerged(
  deps: Deps,
  streams: StreamQuery[],
  cursor: StreamCursor,
  limit: number,
): Promise<TransactionsTable[]> {
  const rows: TransactionsTable[] = [];
  // One after another: on SQLite they share one connection anyway, and on PostgreSQL one page must not
  // take the whole pool.
  for (const stream of streams) rows.push(...(await searchTransactionPage(deps.db, { ...stream, cursor, limit })));
  rows.sort(cursor?.toward === 'newer' ? (a, b) => newestFirst(b, a) : newestFirst);
  return rows.slice(0, limit);
}

/** One page of the list. A cursor this service did not make is an `invalid_parameter`. */
export async function searchTransactions(
  deps: Deps,
  viewer: Viewer,
  filters: TransactionFilters,
  cursor: PageCursor,
  pageSize = PAGE_SIZE,
): Promise<TransactionSearchPage> {
  const at =
    cursor === null
      ? null
      : 'older' in cursor
        ? { ...decodeCursor(cursor.older), toward: 'older' as const }
        : { ...decodeCursor(cursor.newer), toward: 'newer' as const };
  const streams = await streamsOf(deps, viewer, filters, deps.now());
  // One row more than the page tells whether there is another page beyond it.
  const rows = await readMerged(deps, streams, at, pageSize + 1);
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
