// Transaction rows written straight into the database, for console tests that need many rows, exact
// creation times or unusual refs: the API's creates would pick their own times and unique codes.
import { timePrefix } from '../../src/domain/ids.js';
import type { Deps } from '../../src/services/deps.js';
import { insertTransactions } from '../../src/storage/queries/transactions.js';
import type { TransactionsTable } from '../../src/storage/schema.js';

let seq = 0;

/**
 * An id as the gateway makes them (time prefix, then random), in lower case only, so that JavaScript's
 * string order is the databases' order whatever their collation.
 */
function idAt(createdAt: number): string {
  let random = '';
  while (random.length < 22) random += Math.random().toString(36).slice(2);
  return `trx_${timePrefix(createdAt)}${random.slice(0, 22)}`;
}

/** A pending test-mode transaction of `merchantId` created at `createdAt`, with `extra` over it. */
export function transactionRow(
  merchantId: string,
  createdAt: number,
  extra: Partial<TransactionsTable> = {},
): TransactionsTable {
  seq += 1;
  const code = (seq % 900) + 1;
  return {
    id: idAt(createdAt),
    merchant_id: merchantId,
    mode: 'test',
    status: 'pending',
    amount: 10_000,
    unique_code: code,
    total_amount: 10_000 + code,
    currency: 'IDR',
    email: null,
    ref: null,
    qris: '00020101021226',
    created_at: createdAt,
    expires_at: createdAt + 15 * 60_000,
    paid_at: null,
    paid_late: 0,
    payment_id: null,
    updated_at: createdAt,
    source_id: null,
    acquirer_reference: null,
    cancelled_at: null,
    ...extra,
  };
}

/** Writes the rows, 200 to a statement. */
export async function insertRows(deps: Deps, rows: TransactionsTable[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    const chunk = rows.slice(i, i + 200);
    await deps.db.runInTransaction((trx) => insertTransactions(trx, chunk));
  }
}
