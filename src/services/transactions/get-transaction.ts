import { AppError } from '../../domain/errors.js';
import { loadTransactionById } from '../../storage/queries/transactions.js';
import type { Mode } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { paymentOf } from './payment-of.js';
import { refundsOf } from '../refunds/refunds-of.js';
import type { TransactionWithPayment } from './transaction-with-payment.js';

/**
 * One transaction as its owner sees it. Another merchant's (or the other mode's) id is reported as
 * not found, never as forbidden, so ids cannot be probed across merchants.
 */
export async function getTransaction(
  deps: Deps,
  owner: { merchantId: string; mode: Mode },
  trxid: string,
): Promise<TransactionWithPayment> {
  const transaction = await loadTransactionById(deps.db, trxid);
  if (!transaction || transaction.merchant_id !== owner.merchantId || transaction.mode !== owner.mode) {
    throw new AppError('transaction_not_found', `no transaction ${trxid}`, { param: 'trxid' });
  }
  const payment = await paymentOf(deps, transaction);
  // The hot path (every status read): no second promise nor Promise.all for the refunds nearly no
  // transaction has; one that has them reads them after its payment.
  const refunds = transaction.refund_count ? await refundsOf(deps, transaction) : [];
  return { transaction, payment, refunds };
}
