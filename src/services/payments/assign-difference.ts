import { type PaymentDifference, amountsAfter } from '../../domain/payment-difference.js';
import { paymentTransactionOf } from '../../storage/queries/payments.js';
import type { PaymentsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

export interface AssignDifference extends PaymentDifference {
  trxid: string;
  paid: number;
  total: number;
  /** What the transaction received before (a part payment kept open), 0 when nothing. */
  before: number;
  /** The sum it would hold: before + paid. */
  amountPaid: number;
}

/**
 * What assigning this payment to `trxid` would leave over or short (counting what the transaction
 * received before), for the console's confirmation before an assign with a difference. Null when there
 * is nothing to confirm: no such unpaid transaction of the payment's merchant and mode (the assign
 * itself then says why), or the sum is the total. The caller has already found the payment within the
 * viewer's scope.
 */
export async function assignDifference(
  deps: Deps,
  payment: Pick<PaymentsTable, 'merchant_id' | 'mode' | 'amount'>,
  trxid: string,
): Promise<AssignDifference | null> {
  const tx = await paymentTransactionOf(deps.db, trxid, { merchantId: payment.merchant_id, mode: payment.mode });
  if (!tx || tx.status === 'paid') return null;
  const before = tx.amount_paid ?? 0;
  const amounts = amountsAfter(before, payment.amount, tx.total_amount);
  if (amounts.amountPaid === tx.total_amount) return null;
  return { trxid: tx.id, paid: payment.amount, total: tx.total_amount, before, ...amounts };
}
