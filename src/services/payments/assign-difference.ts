import { type PaymentDifference, paymentDifference } from '../../domain/payment-difference.js';
import { paymentTransactionOf } from '../../storage/queries/payments.js';
import type { PaymentsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

export interface AssignDifference extends PaymentDifference {
  trxid: string;
  paid: number;
  total: number;
}

/**
 * What assigning this payment to `trxid` would leave over or short, for the console's confirmation
 * before an assign with a difference. Null when there is nothing to confirm: no such unpaid transaction
 * of the payment's merchant and mode (the assign itself then says why), or the amounts agree. The
 * caller has already found the payment within the viewer's scope.
 */
export async function assignDifference(
  deps: Deps,
  payment: Pick<PaymentsTable, 'merchant_id' | 'mode' | 'amount'>,
  trxid: string,
): Promise<AssignDifference | null> {
  const tx = await paymentTransactionOf(deps.db, trxid, { merchantId: payment.merchant_id, mode: payment.mode });
  if (!tx || tx.status === 'paid' || tx.total_amount === payment.amount) return null;
  return { trxid: tx.id, paid: payment.amount, total: tx.total_amount, ...paymentDifference(payment.amount, tx.total_amount) };
}
