import { AppError } from '../../domain/errors.js';
import { loadPaymentById, loadTransactionById, loadTransactionsById } from '../../storage/queries/transactions.js';
import type { Mode, PaymentsTable, TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

export interface TransactionWithPayment {
  transaction: TransactionsTable;
  payment: PaymentsTable | null;
}

/**
 * One transaction as its owner sees it. Another merchant's (or the other mode's) id is reported as
 * not found, never as forbidden, so ids cannot be probed across merchants.
 */
export async function getTransaction(deps: Deps, owner: { merchantId: string; mode: Mode }, trxid: string): Promise<TransactionWithPayment> {
  const transaction = await loadTransactionById(deps.db, trxid);
  if (!transaction || transaction.merchant_id !== owner.merchantId || transaction.mode !== owner.mode) {
    throw new AppError('transaction_not_found', `no transaction ${trxid}`, { param: 'trxid' });
  }
  return { transaction, payment: await paymentOf(deps, transaction) };
}

/** For the public QR image and checkout page: the transaction id itself is the capability. */
export async function getTransactionById(deps: Deps, trxid: string): Promise<TransactionsTable> {
  const transaction = await loadTransactionById(deps.db, trxid);
  if (!transaction) throw new AppError('transaction_not_found', `no transaction ${trxid}`, { param: 'trxid' });
  return transaction;
}

/**
 * Many transactions by id, for the status watcher: asked for in one turn, they share the IN-list
 * statements of the batched read (one per 64 ids). Ids with no transaction are absent from the map.
 */
export function transactionsById(deps: Deps, ids: readonly string[]): Promise<Map<string, TransactionsTable>> {
  return loadTransactionsById(deps.db, ids);
}

export async function paymentOf(deps: Deps, tx: TransactionsTable): Promise<PaymentsTable | null> {
  if (tx.payment_id === null) return null;
  return (await loadPaymentById(deps.db, tx.payment_id)) ?? null;
}
