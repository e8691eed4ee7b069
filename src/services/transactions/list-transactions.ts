import { decodeCursor, encodeCursor } from '../../domain/transaction-cursor.js';
import { readPaymentsByIds, readTransactionPage } from '../../storage/queries/transactions.js';
import type { Mode, PaymentsTable, TransactionStatus } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import type { TransactionWithPayment } from './transaction-with-payment.js';
import { refundsOfMany } from '../refunds/refunds-of.js';

export interface ListTransactionsInput {
  /** Null (operators only): every merchant, or both modes. */
  merchantId: string | null;
  mode: Mode | null;
  limit: number;
  cursor: string | null;
  status: TransactionStatus | null;
}

export interface ListTransactionsResult {
  items: TransactionWithPayment[];
  nextCursor: string | null;
}

export async function listTransactions(deps: Deps, input: ListTransactionsInput): Promise<ListTransactionsResult> {
  const now = deps.now();
  // Status filters use the status a reader sees: a pending row past its expiry counts as expired.
  // One row more than the page shows whether there is a next page.
  const rows = await readTransactionPage(deps.db, {
    merchantId: input.merchantId,
    mode: input.mode,
    status: input.status,
    now,
    before: input.cursor === null ? null : decodeCursor(input.cursor),
    limit: input.limit + 1,
  });
  const page = rows.slice(0, input.limit);
  const paymentIds = page.map((r) => r.payment_id).filter((id): id is string => id !== null);
  const payments = new Map<string, PaymentsTable>();
  if (paymentIds.length > 0) {
    for (const p of await readPaymentsByIds(deps.db, paymentIds)) {
      payments.set(p.id, p);
    }
  }
  const refunds = await refundsOfMany(deps, page);
  const last = page[page.length - 1];
  return {
    items: page.map((transaction) => ({
      transaction,
      payment: transaction.payment_id === null ? null : (payments.get(transaction.payment_id) ?? null),
      refunds: refunds.get(transaction.id) ?? [],
    })),
    nextCursor: rows.length > input.limit && last ? encodeCursor(last.created_at, last.id) : null,
  };
}
