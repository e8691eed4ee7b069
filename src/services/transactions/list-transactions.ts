import { AppError } from '../../domain/errors.js';
import { readPaymentsByIds, readTransactionPage } from '../../storage/queries/transactions.js';
import type { Mode, PaymentsTable, TransactionStatus } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import type { TransactionWithPayment } from './get-transaction.js';

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

// The cursor is the (created_at, id) of the last row returned, so pages stay stable while new
// transactions arrive at the head of the list.
export function encodeCursor(createdAt: number, id: string): string {
  return Buffer.from(`${createdAt}:${id}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: number; id: string } {
  const text = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const m = /^([0-9]{1,15}):(trx_[0-9A-Za-z]{1,64})$/.exec(text);
  if (!m) throw new AppError('invalid_parameter', 'cursor is not one this API returned', { param: 'cursor' });
  return { createdAt: Number(m[1]), id: m[2]! };
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
  const last = page[page.length - 1];
  return {
    items: page.map((transaction) => ({
      transaction,
      payment: transaction.payment_id === null ? null : (payments.get(transaction.payment_id) ?? null),
    })),
    nextCursor: rows.length > input.limit && last ? encodeCursor(last.created_at, last.id) : null,
  };
}
