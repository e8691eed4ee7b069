import { AppError } from '../../domain/errors.js';
import { loadTransactionById } from '../../storage/queries/transactions.js';
import type { Mode } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { paymentOf } from './payment-of.js';
import { refundsOf } from './refunds-of.js';
import type { TransactionWithPayment } from './transaction-with-payment.js';

/**
 * One transaction as its owner sees it. Another merchant's (or the other mode's) id is reported as
 * not found, never as forbidden, so ids cannot be probed across merchants.
 */
export async function getTransaction(deps: Deps, owner: { merchantId: string; mode: Mode }, trxid: string): Promise<TransactionWithPayment> {
  const transaction = await loadTransactionById(deps.db, trxid);
  if (!transaction || transaction.merchant_id !== owner.merchantId || transaction.mode !== owner.mode) {
    throw new AppError('transaction_not_found', `no transaction ${trxid}`, { param: 'trxid' });
  }
  const [payment, refunds] = await Promise.all([paymentOf(deps, transaction), refundsOf(deps, transaction)]);
  return { transaction, payment, refunds };
}
