// The filtered transaction list as CSV, for reconciliation. Streamed: the service reads 500 rows at a
// time by cursor and each page is written out as it comes, so an export of a month never sits in memory.
import { Readable } from 'node:stream';
import type { Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { csvRow, type CsvValue } from '../../../domain/csv.js';
import { isoTime, isoTimeOrNull } from '../../../domain/iso-time.js';
import { transactionRefundStatus } from '../../../domain/refund.js';
import { effectiveStatus } from '../../../domain/transaction.js';
import { parseTransactionFilters, wibDate } from '../../../domain/transaction-filters.js';
import type { Deps } from '../../../services/deps.js';
import type { TransactionWithPayment } from '../../../services/transactions/transaction-with-payment.js';
import { exportTransactions } from '../../../services/transactions/export-transactions.js';
import { Query, Text } from '../../forms.js';
import type { ConsolePage } from '../context.js';

/** The list's filters, as a query string: the list page (transactions.ts) reads them too, with its cursor. */
export const FILTERS = { q: Text(), status: Text(), merchant: Text(), mode: Text(), from: Text(), to: Text() };
export const FilterQuery = Query(FILTERS);

export const CSV_COLUMNS = [
  'trxid',
  'merchant_id',
  'mode',
  'status',
  'amount',
  'unique_code',
  'total_amount',
  'currency',
  'ref',
  'email',
  'created_at',
  'expires_at',
  'paid_at',
  'paid_late',
  'cancelled_at',
  'payment_id',
  'payment_source',
  'payment_reference',
  'cashier',
  'description',
  'amount_paid',
  'underpaid',
  'overpaid',
  'refunded_amount',
  'refund_status',
] as const;

/** One transaction as a CSV record; times in ISO 8601 UTC, statuses as a reader sees them at `now`. */
function record({ transaction: tx, payment }: TransactionWithPayment, now: number): string {
  const values: CsvValue[] = [
    tx.id,
    tx.merchant_id,
    tx.mode,
    effectiveStatus(tx, now),
    tx.amount,
    tx.unique_code,
    tx.total_amount,
    tx.currency,
    tx.ref,
    tx.email,
    isoTime(tx.created_at),
    isoTime(tx.expires_at),
    isoTimeOrNull(tx.paid_at),
    tx.paid_late === 1,
    isoTimeOrNull(tx.cancelled_at),
    payment?.id ?? null,
    payment?.source ?? null,
    payment?.reference ?? null,
    // The cashier's user id (the console's filter takes it), and the sale's note.
    tx.created_by_user_id ?? null,
    tx.description ?? null,
    // At the end, so readers of the earlier columns by position are unchanged (migration 017).
    tx.amount_paid ?? 0,
    tx.underpaid ?? 0,
    tx.overpaid ?? 0,
    // Refunds (issue 37): at the end too.
    tx.refunded_amount ?? 0,
    transactionRefundStatus(tx),
  ];
  return csvRow(values);
}

async function* csvText(pages: AsyncIterable<TransactionWithPayment[]>, now: number): AsyncGenerator<string> {
  yield csvRow(CSV_COLUMNS);
  for await (const page of pages) yield page.map((row) => record(row, now)).join('');
}

/** GET /dashboard/transactions.csv (at `url`) with the list's filters. */
export async function exportCsv(
  deps: Deps,
  page: ConsolePage,
  query: Static<typeof FilterQuery>,
  url: string,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const { filters, problems } = parseTransactionFilters(query);
  if (problems.length > 0) {
    // The list page says what is wrong with the filters, in the viewer's language.
    const qs = url.includes('?') ? url.slice(url.indexOf('?')) : '';
    return reply.redirect(`/dashboard/transactions${qs}`, 303);
  }
  // Refusals (another merchant's filter) happen here, before the first byte of the file is sent.
  const { asOf, pages } = await exportTransactions(deps, page.viewer, filters);
  return reply
    .header('Content-Type', 'text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="transactions-${wibDate(asOf)}.csv"`)
    .send(Readable.from(csvText(pages, asOf), { objectMode: false }));
}
