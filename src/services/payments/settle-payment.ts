import { AppError } from '../../domain/errors.js';
import { amountsAfter } from '../../domain/payment-difference.js';
import type { Tx } from '../../storage/executor.js';
import { bindUnmatchedPayment, markTransactionPaid, type PaidValues } from '../../storage/queries/payments.js';
import type { PaymentsTable, TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { announcePaid } from './announce-paid.js';
import type { OutboxWrites } from '../outbox/outbox-writes.js';

/**
 * Binds a stored, unmatched payment to a transaction and marks the transaction paid, with its
 * `transaction.paid` event and receipt, inside the caller's database transaction. Shared by
 * record-payment and an operator's assign so both pay a transaction the same way.
 *
 * Returns null, having changed nothing, when the transaction is already paid, or received a part
 * payment since `candidate` was read: the conditional update is the guard that holds when two payments
 * race for one transaction.
 */
export async function settlePayment(
  trx: Tx,
  deps: Deps,
  payment: PaymentsTable,
  candidate: TransactionsTable,
  late: boolean,
  now: number,
  batched?: {
    /** Where the outbox rows are gathered (outbox-writes.ts). */
    writes: OutboxWrites;
    /** The payment's row is kept by its batch, not yet inserted: the caller binds it there. */
    pending: boolean;
    /**
     * Set in a batch of several reports: the transaction is marked paid with the batch's others in one
     * statement at its end (report-batch.ts), and this gives the row as that update makes it.
     */
    payLater?: (candidate: TransactionsTable, paid: PaidValues) => TransactionsTable;
  },
): Promise<{ payment: PaymentsTable; transaction: TransactionsTable } | null> {
  // The row as updated, not the candidate as read: a cancel may have committed in between (cancelled_at, paid_late).
  // The matcher only binds exact amounts; an operator's assign may bind another amount it accepted, or
  // complete a transaction kept open after a part payment, and the transaction then records what it
  // received in all and the difference (domain/payment-difference.ts).
  const before = candidate.amount_paid ?? 0;
  const amounts = amountsAfter(before, payment.amount, candidate.total_amount);
  const paid: PaidValues = {
    paymentId: payment.id,
    paidAt: payment.paid_at,
    late,
    now,
    amountPaidBefore: before,
    amountPaid: amounts.amountPaid,
    underpaid: amounts.underpaid,
    overpaid: amounts.overpaid,
  };
  const transaction = batched?.payLater
    ? batched.payLater(candidate, paid)
    : await markTransactionPaid(trx, candidate.id, paid);
  if (!transaction) return null;
  const bound = batched?.pending === true || (await bindUnmatchedPayment(trx, payment.id, candidate.id));
  // Only an operator's assign can meet a payment bound meanwhile (two assigns of one payment at once,
  // to two transactions of the same total: on PostgreSQL both read it unmatched). The loser is told as
  // if it had come second; throwing rolls its payment of the transaction back with it.
  if (!bound)
    throw new AppError('payment_already_matched', `payment ${payment.id} was matched meanwhile`, {
      param: 'payment_id',
    });

  const settled: PaymentsTable = { ...payment, status: 'matched', reason: null, transaction_id: candidate.id };
  await announcePaid(trx, deps, transaction, settled, now, batched?.writes);
  return { payment: settled, transaction };
}
