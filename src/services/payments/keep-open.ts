import { AppError } from '../../domain/errors.js';
import { amountsAfter } from '../../domain/payment-difference.js';
import type { Tx } from '../../storage/executor.js';
import { addPartPayment, bindUnmatchedPayment } from '../../storage/queries/payments.js';
import type { PaymentsTable, TransactionsTable } from '../../storage/schema.js';

/**
 * Binds a part payment to an unpaid transaction that a person keeps open for the rest, inside the
 * caller's database transaction: the transaction keeps its status, its amount_paid grows by the payment
 * and its underpaid is the rest still due. No event: `transaction.paid` fires once, when a later payment
 * completes it (settle-payment.ts).
 *
 * Returns null, having changed nothing, when the transaction was paid or received another part since
 * `candidate` was read (the caller reads it again).
 */
export async function keepOpen(
  trx: Tx,
  payment: PaymentsTable,
  candidate: TransactionsTable,
  now: number,
): Promise<{ payment: PaymentsTable; transaction: TransactionsTable } | null> {
  const before = candidate.amount_paid ?? 0;
  const amounts = amountsAfter(before, payment.amount, candidate.total_amount);
  const transaction = await addPartPayment(trx, candidate.id, {
    amountPaidBefore: before,
    amountPaid: amounts.amountPaid,
    underpaid: amounts.underpaid,
    now,
  });
  if (!transaction) return null;
  if (!(await bindUnmatchedPayment(trx, payment.id, candidate.id))) {
    throw new AppError('payment_already_matched', `payment ${payment.id} was matched meanwhile`, {
      param: 'payment_id',
    });
  }
  return { payment: { ...payment, status: 'matched', reason: null, transaction_id: candidate.id }, transaction };
}
