import type { Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { isLate } from '../../domain/matching.js';
import { amountsAfter, assignFit, differenceMessage } from '../../domain/payment-difference.js';
import type { Tx } from '../../storage/executor.js';
import type { PaymentsTable, TransactionsTable } from '../../storage/schema.js';
import { paymentTransactionOf } from '../../storage/queries/payments.js';
import { refundOfPayment } from '../../storage/queries/refunds.js';
import { paymentInScope } from '../../storage/queries/payment-review.js';
import type { Deps } from '../deps.js';
import { writeAudit } from '../audit.js';
import { keepOpen } from './keep-open.js';
import { settlePayment } from './settle-payment.js';

// Two assigns to one transaction at once: the loser's conditional update changes nothing and it reads
// the transaction again. Each retry follows a committed assign of another payment, so a few suffice.
const ATTEMPTS = 5;

/**
 * An operator binds an unmatched payment to the transaction it was meant for (a payer who paid the
 * base amount without the unique code, a late payment past the reservation, a second part, ...). What
 * the transaction received before (a part kept open) counts: when the sum is its total it is paid. A
 * sum of another amount is refused (amount_differs, naming the difference) unless the operator
 * accepted the difference explicitly, and the transaction is then paid with what it received and is
 * underpaid or overpaid by the rest; or, for a sum short of the total, the operator keeps it open for
 * the rest (`keepOpen`): the payment is bound, the transaction stays unpaid with amount_paid the sum.
 * The time window is not applied: the operator's judgement replaces it, and the audit log records it.
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
    /** The operator accepts that the payments' sum differs from the total. */
    acceptDifference?: boolean;
    /**
     * The difference (sum minus total) the operator saw and accepted (the console's confirmation):
     * another one, say a transaction id changed after confirming, is refused as if nothing was accepted.
     */
    acceptedDifference?: number;
    /** The operator keeps the transaction open for the rest when the sum is short of the total. */
    keepOpen?: boolean;
  },
): Promise<{ payment: PaymentsTable; transaction: TransactionsTable; keptOpen: boolean }> {
  return deps.db.runInTransaction(async (trx) => {
    const payment = await paymentInScope(trx, input.paymentId, input.merchants ?? null);
    if (!payment) throw new AppError('payment_not_found', `no payment ${input.paymentId}`, { param: 'payment_id' });
    if (payment.status !== 'unmatched') {
      throw new AppError('payment_already_matched', `payment ${payment.id} already pays ${payment.transaction_id}`, {
        param: 'payment_id',
      });
    }
    await refuseRefunded(trx, payment.id);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const done = await assignOnce(trx, deps, input, payment);
      if (done) {
        // Checked again after the bind, which holds the payment's row: a refund of it that committed
        // meanwhile is seen now (on PostgreSQL each statement reads what committed before it).
        await refuseRefunded(trx, payment.id);
        return done;
      }
    }
    throw new AppError('transaction_already_paid', `transaction ${input.trxid} kept changing; try again`, {
      param: 'trxid',
    });
  });
}

async function refuseRefunded(trx: Tx, paymentId: string): Promise<void> {
  if (await refundOfPayment(trx, paymentId)) {
    throw new AppError('payment_already_refunded', `payment ${paymentId} was refunded: it pays nothing`, {
      param: 'payment_id',
    });
  }
}

/** One read of the transaction and its assign; null when it changed under us (read it again). */
async function assignOnce(
  trx: Tx,
  deps: Deps,
  input: Parameters<typeof assignPayment>[1],
  payment: PaymentsTable,
): Promise<{ payment: PaymentsTable; transaction: TransactionsTable; keptOpen: boolean } | null> {
  // Another merchant's (or the other mode's) transaction is not found, as everywhere else.
  const tx = await paymentTransactionOf(trx, input.trxid, { merchantId: payment.merchant_id, mode: payment.mode });
  if (!tx)
    throw new AppError('transaction_not_found', `no transaction ${input.trxid} of this payment's merchant and mode`, {
      param: 'trxid',
    });
  if (tx.status === 'paid')
    throw new AppError('transaction_already_paid', `transaction ${tx.id} is already paid`, { param: 'trxid' });
  const before = tx.amount_paid ?? 0;
  const amounts = amountsAfter(before, payment.amount, tx.total_amount);
  const fit = assignFit(before, payment.amount, tx.total_amount);
  const keep = fit === 'short' && input.keepOpen === true;
  const signed = amounts.amountPaid - tx.total_amount;
  const accepted =
    input.acceptDifference === true && (input.acceptedDifference === undefined || input.acceptedDifference === signed);
  if (fit !== 'exact' && !keep && !accepted) {
    throw new AppError('amount_differs', differenceMessage(payment.amount, tx.total_amount, before), {
      param: 'trxid',
    });
  }
  const now = deps.now();
  const done = keep
    ? await keepOpen(trx, payment, tx, now)
    : await settlePayment(trx, deps, payment, tx, isLate(tx, payment.paid_at, now), now);
  if (!done) return null;
  await writeAudit(trx, {
    actor: input.actor,
    action: 'payment.assign',
    subjectType: 'payment',
    subjectId: payment.id,
    details: {
      trxid: tx.id,
      amount: payment.amount,
      total_amount: tx.total_amount,
      amount_paid_before: before,
      amount_paid: amounts.amountPaid,
      underpaid: amounts.underpaid,
      overpaid: amounts.overpaid,
      kept_open: keep,
      previous_reason: payment.reason,
      paid_late: done.transaction.paid_late === 1,
    },
    now,
  });
  return { ...done, keptOpen: keep };
}
