import type { Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { isLate } from '../../domain/matching.js';
import { differenceMessage, paymentDifference } from '../../domain/payment-difference.js';
import type { PaymentsTable, TransactionsTable } from '../../storage/schema.js';
import { paymentTransactionOf } from '../../storage/queries/payments.js';
import { paymentInScope } from '../../storage/queries/payment-review.js';
import type { Deps } from '../deps.js';
import { writeAudit } from '../audit.js';
import { settlePayment } from './settle-payment.js';

/**
 * An operator binds an unmatched payment to the transaction it was meant for (a payer who paid the
 * base amount without the unique code, a late payment past the reservation, ...). A payment of another
 * amount is refused (amount_differs, naming the difference) unless the operator accepted the difference
 * explicitly: the transaction is then paid with what it received and is underpaid or overpaid by the
 * rest, and the audit row records the accepted difference. The time window is not applied: the
 * operator's judgement replaces it, and the audit log records it.
 * `merchants` limits the payments that may be assigned (a console user's merchants); a payment of
 * another merchant is not found, exactly as an unknown one.
 */
export async function assignPayment(
  deps: Deps,
  input: {
    paymentId: string;
    trxid: string;
    actor: Actor;
    merchants?: readonly string[] | null;
    /** The operator accepts that the payment's amount differs from the total. */
    acceptDifference?: boolean;
    /**
     * The difference (payment minus total) the operator saw and accepted (the console's confirmation):
     * another one, say a transaction id changed after confirming, is refused as if nothing was accepted.
     */
    acceptedDifference?: number;
  },
): Promise<{ payment: PaymentsTable; transaction: TransactionsTable }> {
  return deps.db.runInTransaction(async (trx) => {
    const payment = await paymentInScope(trx, input.paymentId, input.merchants ?? null);
    if (!payment) throw new AppError('payment_not_found', `no payment ${input.paymentId}`, { param: 'payment_id' });
    if (payment.status !== 'unmatched') {
      throw new AppError('payment_already_matched', `payment ${payment.id} already pays ${payment.transaction_id}`, { param: 'payment_id' });
    }
    // Another merchant's (or the other mode's) transaction is not found, as everywhere else.
    const tx = await paymentTransactionOf(trx, input.trxid, { merchantId: payment.merchant_id, mode: payment.mode });
    if (!tx) throw new AppError('transaction_not_found', `no transaction ${input.trxid} of this payment's merchant and mode`, { param: 'trxid' });
    if (tx.status === 'paid') throw new AppError('transaction_already_paid', `transaction ${tx.id} is already paid`, { param: 'trxid' });
    const difference = paymentDifference(payment.amount, tx.total_amount);
    const accepted =
      input.acceptDifference === true && (input.acceptedDifference === undefined || input.acceptedDifference === payment.amount - tx.total_amount);
    if (tx.total_amount !== payment.amount && !accepted) {
      throw new AppError('amount_differs', differenceMessage(payment.amount, tx.total_amount), { param: 'trxid' });
    }
    const now = deps.now();
    const settled = await settlePayment(trx, deps, payment, tx, isLate(tx, payment.paid_at, now), now);
    if (!settled) throw new AppError('transaction_already_paid', `transaction ${tx.id} is already paid`, { param: 'trxid' });
    await writeAudit(trx, {
      actor: input.actor,
      action: 'payment.assign',
      subjectType: 'payment',
      subjectId: payment.id,
      details: {
        trxid: tx.id,
        amount: payment.amount,
        total_amount: tx.total_amount,
        underpaid: difference.underpaid,
        overpaid: difference.overpaid,
        previous_reason: payment.reason,
        paid_late: settled.transaction.paid_late === 1,
      },
      now,
    });
    return settled;
  });
}
