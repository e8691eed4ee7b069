// Refunds of double payments (issue 28, section 2): a second payment for a transaction already paid,
// kept unmatched, that the merchant paid back. One refunds row per such payment (the partial unique
// index refunds_payment); its money never became the transaction's, so the transaction's refund sums
// are not touched here (the transaction refunds' queries are storage/queries/refunds.ts).
import type { Executor, Tx } from '../executor.js';
import type { RefundsTable } from '../schema.js';

/** The refund of a payment, if it has one. */
export async function refundOfPayment(db: Executor, paymentId: string): Promise<RefundsTable | undefined> {
  return db.selectFrom('refunds').selectAll().where('payment_id', '=', paymentId).executeTakeFirst();
}

/**
 * Locks an unmatched payment's row for the rest of the database transaction (an update that changes
 * nothing); false when it is no longer unmatched. On PostgreSQL a concurrent assign of the same payment
 * then waits for this refund's commit and, reading afterwards, sees the refund (and the reverse: a
 * refund waiting on an assign's bind finds the payment matched).
 */
export async function lockUnmatchedPayment(trx: Tx, paymentId: string): Promise<boolean> {
  const locked = await trx
    .updateTable('payments')
    .set((eb) => ({ status: eb.ref('status') }))
    .where('id', '=', paymentId)
    .where('status', '=', 'unmatched')
    .executeTakeFirst();
  return Number(locked.numUpdatedRows) === 1;
}

/** Stores a payment's refund unless the payment has one already; false when it had. */
export async function insertPaymentRefund(trx: Tx, refund: RefundsTable): Promise<boolean> {
  const stored = await trx
    .insertInto('refunds')
    .values(refund)
    .onConflict((oc) => oc.column('payment_id').where('payment_id', 'is not', null).doNothing())
    .returning('id')
    .executeTakeFirst();
  return stored !== undefined;
}
