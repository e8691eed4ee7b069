import { AppError } from '../domain/errors.js';
import type { Mode, PaymentsTable, TransactionsTable } from '../storage/schema.js';
import type { Deps } from './deps.js';

export interface TransactionWithPayment {
  transaction: TransactionsTable;
  payment: PaymentsTable | null;
}

/**
 * One transaction as its owner sees it. Another merchant's (or the other mode's) id is reported as
 * not found, never as forbidden, so ids cannot be probed across merchants.
 */
export async function getTransaction(
  deps: Deps,
  owner: { merchantId: string; mode: Mode },
  trxid: string,
): Promise<TransactionWithPayment> {
  const transaction = await deps.db
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', trxid)
    .where('merchant_id', '=', owner.merchantId)
    .where('mode', '=', owner.mode)
    .executeTakeFirst();
  if (!transaction) throw new AppError('transaction_not_found', `no transaction ${trxid}`, { param: 'trxid' });
  return { transaction, payment: await paymentOf(deps, transaction) };
}

/** For the public QR image and checkout page: the transaction id itself is the capability. */
export async function getTransactionById(deps: Deps, trxid: string): Promise<TransactionsTable> {
  const transaction = await deps.db.selectFrom('transactions').selectAll().where('id', '=', trxid).executeTakeFirst();
  if (!transaction) throw new AppError('transaction_not_found', `no transaction ${trxid}`, { param: 'trxid' });
  return transaction;
}

export async function paymentOf(deps: Deps, tx: TransactionsTable): Promise<PaymentsTable | null> {
  if (tx.payment_id === null) return null;
  return (await deps.db.selectFrom('payments').selectAll().where('id', '=', tx.payment_id).executeTakeFirst()) ?? null;
}
