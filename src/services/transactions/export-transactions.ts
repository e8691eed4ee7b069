// The console's CSV export: every transaction the filters find, newest first, merged from one stream per
// merchant and mode (transaction-streams.ts), read a chunk at a time.
import type { TransactionFilters } from '../../domain/transaction-filters.js';
import { searchTransactionPage } from '../../storage/queries/transactions.js';
import type { TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import type { Viewer } from '../../domain/viewer.js';
import { type StreamCursor, newestFirst, type StreamQuery, streamsOf, withPayments } from './transaction-streams.js';
import type { TransactionWithPayment } from './transaction-with-payment.js';

export const EXPORT_PAGE_SIZE = 500;
/** Rows an export holds per stream at most (fewer per stream when there are many). */
const EXPORT_BUFFER_ROWS = 4000;

/**
 * One stream's rows, newest first, read `chunk` at a time as they are taken. `head` is the next row
 * (undefined once the stream is done).
 */
class StreamReader {
  private buffer: TransactionsTable[] = [];
  private at = 0;
  private cursor: StreamCursor = null;
  private done = false;
  constructor(
    private readonly deps: Deps,
    private readonly query: StreamQuery,
    private readonly chunk: number,
  ) {}

  /** Reads the next chunk when the buffer is used up. */
  async fill(): Promise<void> {
    if (this.at < this.buffer.length || this.done) return;
    this.buffer = await searchTransactionPage(this.deps.db, { ...this.query, cursor: this.cursor, limit: this.chunk });
    this.at = 0;
    const last = this.buffer[this.buffer.length - 1];
    if (this.buffer.length < this.chunk || !last) this.done = true;
    else this.cursor = { createdAt: last.created_at, id: last.id, toward: 'older' };
  }

  get head(): TransactionsTable | undefined {
    return this.buffer[this.at];
  }

  take(): TransactionsTable {
    return this.buffer[this.at++]!;
  }
}

/**
 * Every row the filters find, newest first, for the CSV export, in pages of `pageSize`, read as `pages`
 * is consumed: each stream is read a chunk at a time by its cursor and merged, so each row is read once
 * and a month of transactions never sits in memory at once. The merchant filter is checked before
 * anything is read, so a refusal can still be an error page. `asOf` is the moment the status filter and
 * the statuses shown are taken at, one for the whole export.
 */
export async function exportTransactions(
  deps: Deps,
  viewer: Viewer,
  filters: TransactionFilters,
  pageSize = EXPORT_PAGE_SIZE,
): Promise<{ asOf: number; pages: AsyncIterable<TransactionWithPayment[]> }> {
  const asOf = deps.now();
  const streams = await streamsOf(deps, viewer, filters, asOf);
  const chunk = Math.max(50, Math.min(pageSize, Math.floor(EXPORT_BUFFER_ROWS / streams.length)));
  const pages = {
    async *[Symbol.asyncIterator]() {
      const readers = streams.map((s) => new StreamReader(deps, s, chunk));
      let page: TransactionsTable[] = [];
      for (;;) {
        for (const r of readers) await r.fill();
        let next: StreamReader | undefined;
        for (const r of readers) if (r.head && (!next || newestFirst(r.head, next.head!) < 0)) next = r;
        if (!next) break;
        page.push(next.take());
        if (page.length === pageSize) {
          yield await withPayments(deps, page);
          page = [];
        }
      }
      if (page.length > 0) yield await withPayments(deps, page);
    },
  };
  return { asOf, pages };
}
