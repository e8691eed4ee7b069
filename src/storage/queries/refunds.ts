import { sql } from 'kysely';
import type { Db, Executor, Tx } from '../executor.js';
import type { RefundsTable, TransactionsTable } from '../schema.js';

// A transaction's refunds never sum over what it received, nor number more than the bound: a refund is
// admitted by one conditional UPDATE of the transaction's row (holdRefund), which both databases evaluate
// against the row as it is when the write lands (PostgreSQL re-checks the WHERE after the row lock; SQLite
// serialises writers), so concurrent requests and several instances cannot both pass on the same
// remainder or the same last place.

/**
 * Records a new refund unless another request holds its (merchant, Idempotency-Key); false then. On
 * PostgreSQL a racing insert of the same key waits for the other transaction and then does nothing.
 */
export async function insertRefundUnlessKeyTaken(trx: Tx, row: RefundsTable): Promise<boolean> {
  const inserted = await trx
    .insertInto('refunds')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['merchant_id', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing(),
    )
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Holds `amount` of a paid transaction for a new refund, if what it received still covers it beside its
 * succeeded and pending refunds and it has had fewer than `maxCount` refunds (of any status); the updated
 * row, or undefined (not paid, not enough left, or no refund left of the bound).
 */
export function holdRefund(
  trx: Tx,
  transactionId: string,
  amount: number,
  maxCount: number,
  now: number,
): Promise<TransactionsTable | undefined> {
  return trx
    .updateTable('transactions')
    .set({
      refund_held: sql<number>`refund_held + ${amount}`,
      refund_count: sql<number>`refund_count + 1`,
      updated_at: now,
    })
    .where('id', '=', transactionId)
    .where('status', '=', 'paid')
    .where(sql<boolean>`refunded_amount + refund_held + ${amount} <= amount_paid`)
    .where('refund_count', '<', maxCount)
    .returningAll()
    .executeTakeFirst();
}

/** Moves a succeeded refund's amount from the held sum to the refunded sum; the updated row. */
export function moveHeldToRefunded(
  trx: Tx,
  transactionId: string,
  amount: number,
  now: number,
): Promise<TransactionsTable> {
  return trx
    .updateTable('transactions')
    .set({
      refund_held: sql<number>`refund_held - ${amount}`,
      refunded_amount: sql<number>`refunded_amount + ${amount}`,
      updated_at: now,
    })
    .where('id', '=', transactionId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

// The payer's refund notices (migration 020 says what the columns mean): at most one per transaction in a
// window, the refunds of a window told together. scheduleRefundNotice runs in a succeeded refund's unit of
// work, after the refund's own UPDATE of the transaction's row; closeRefundNotice runs in the mailer's,
// before it reads the notice's refunds. Both write that one row, so on PostgreSQL one waits for the other's
// commit and then sees its change (SQLite serialises writers): a refund joins a notice only while no mailer
// has begun it, and a mailer that has begun one lists every refund that joined it.

/**
 * Picks the notice that tells the payer of a refund succeeding at `now`, and returns its due time:
 * - the transaction's open notice (no mailer has begun it), unless it is a whole window overdue (no
 *   mailer is sending: a new one then, so a refund is never held back by a notice that is not sent);
 * - else, a window or more after the last notice, a new one due at once;
 * - else a new one due a window after the last, which the refunds until then join.
 * So notices are due at least a window apart, whatever the number of refunds and instances.
 */
export async function scheduleRefundNotice(
  trx: Tx,
  transactionId: string,
  now: number,
  windowMs: number,
): Promise<number> {
  const row = await trx
    .updateTable('transactions')
    .set({
      refund_notice_due: sql<number>`case
        when refund_notice_due is null then ${now}
        when (refund_notice_closed is null or refund_notice_closed < refund_notice_due) and refund_notice_due + ${windowMs} > ${now} then refund_notice_due
        when refund_notice_due + ${windowMs} <= ${now} then ${now}
        else refund_notice_due + ${windowMs}
      end`,
    })
    .where('id', '=', transactionId)
    .returning('refund_notice_due')
    .executeTakeFirstOrThrow();
  return Number(row.refund_notice_due);
}

/** Names the notice (its due time) that tells the payer of a succeeded refund. */
export async function setRefundNoticeDue(trx: Tx, refundId: string, due: number): Promise<void> {
  await trx.updateTable('refunds').set({ notice_due: due }).where('id', '=', refundId).execute();
}

/** Closes the transaction's notice due at `due` to further refunds (a mailer is about to tell them); again is a no-op. */
export async function closeRefundNotice(trx: Tx, transactionId: string, due: number): Promise<void> {
  await trx
    .updateTable('transactions')
    .set({ refund_notice_closed: due })
    .where('id', '=', transactionId)
    .where((eb) => eb.or([eb('refund_notice_closed', 'is', null), eb('refund_notice_closed', '<', due)]))
    .execute();
}

/** The succeeded refunds a notice tells of, oldest first. */
export function refundsOfNotice(db: Executor, transactionId: string, due: number): Promise<RefundsTable[]> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .where('notice_due', '=', due)
    .where('status', '=', 'succeeded')
    .orderBy('completed_at')
    .orderBy('id')
    .execute();
}

/** Gives a failed refund's held amount back to what remains refundable; the updated row. */
export function releaseRefundHold(
  trx: Tx,
  transactionId: string,
  amount: number,
  now: number,
): Promise<TransactionsTable> {
  return trx
    .updateTable('transactions')
    .set({ refund_held: sql<number>`refund_held - ${amount}`, updated_at: now })
    .where('id', '=', transactionId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Marks a pending refund succeeded; the row, or undefined when it was no longer pending (already final). */
export function markRefundSucceeded(
  trx: Tx,
  id: string,
  done: { reference: string | null; completedAt: number; attempts: number; now: number },
): Promise<RefundsTable | undefined> {
  return trx
    .updateTable('refunds')
    .set({
      status: 'succeeded',
      // A final answer without a reference keeps the one an "in progress" answer gave.
      reference: sql<string | null>`coalesce(${done.reference}, reference)`,
      completed_at: done.completedAt,
      attempts: done.attempts,
      next_attempt_at: null,
      updated_at: done.now,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/** Marks a pending refund failed with a stable code and the acquirer's words; undefined when already final. */
export function markRefundFailed(
  trx: Tx,
  id: string,
  failure: { code: string; message: string; attempts: number; now: number },
): Promise<RefundsTable | undefined> {
  return trx
    .updateTable('refunds')
    .set({
      status: 'failed',
      error_code: failure.code,
      error_message: failure.message,
      attempts: failure.attempts,
      next_attempt_at: null,
      completed_at: failure.now,
      updated_at: failure.now,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

/** Keeps a pending refund pending, to be asked again at `nextAttemptAt` (in progress, or no answer). */
export async function deferPendingRefund(
  db: Executor,
  id: string,
  retry: { reference: string | null; attempts: number; nextAttemptAt: number; now: number },
): Promise<void> {
  await db
    .updateTable('refunds')
    .set({
      reference: sql<string | null>`coalesce(${retry.reference}, reference)`,
      attempts: retry.attempts,
      next_attempt_at: retry.nextAttemptAt,
      updated_at: retry.now,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/** One refund by id. */
export function readRefund(db: Executor, id: string): Promise<RefundsTable | undefined> {
  return db.selectFrom('refunds').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The refund a merchant asked for under an Idempotency-Key (stored as `mode:key`), if any. */
export function findRefundByKey(db: Executor, merchantId: string, idemKey: string): Promise<RefundsTable | undefined> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('idempotency_key', '=', idemKey)
    .executeTakeFirst();
}

/**
 * A transaction's refunds, oldest first. A double payment's refund (payment_id set) names the transaction
 * it was meant for but gives back money the transaction never received: it is the payment's, listed with
 * the payment, and left out here as it is left out of refunded_amount.
 */
export function refundsOfTransaction(db: Executor, transactionId: string): Promise<RefundsTable[]> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .where('payment_id', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The refunds of several transactions (a page of a list), oldest first. */
export function refundsOfTransactions(db: Db, transactionIds: readonly string[]): Promise<RefundsTable[]> {
  if (transactionIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('transaction_id', 'in', [...transactionIds])
    .where('payment_id', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Ids of pending refunds due to be asked of their acquirer again, the most overdue first. */
export async function dueRefundIds(db: Db, now: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('refunds')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Claims a due pending refund by moving its next attempt to `leaseUntil` (compare-and-set on the due
 * time), so of several resolvers (instances) only one asks the acquirer; the refund, or undefined.
 */
export function claimDueRefund(db: Db, id: string, now: number, leaseUntil: number): Promise<RefundsTable | undefined> {
  return db
    .updateTable('refunds')
    .set({ next_attempt_at: leaseUntil, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .returningAll()
    .executeTakeFirst();
}

// Refunds of double payments (issue 28, section 2): a second payment for a transaction already paid,
// kept unmatched, that the merchant paid back. One refunds row per such payment (the partial unique
// index refunds_payment); its money never became the transaction's, so the transaction's refund sums
// are not touched by these three (the transaction refunds' queries are above).
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
