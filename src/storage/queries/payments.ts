// Payments: reported payments, and the reads and writes of transactions that matching and settling a
// payment need (named for what they do; the rest of the transactions' queries live elsewhere).
import { type Kysely, sql } from 'kysely';
import { onPostgres, valuesList } from '../engine/key-list.js';
import { prepareQuery } from '../engine/prepared.js';
import { padToPowerOfTwo, prepareRowsQuery } from '../engine/prepared-rows.js';
import type { Db, Executor, Tx } from '../executor.js';
import type { DB, Dialect, Mode, PaymentStatus, PaymentsTable, TransactionsTable } from '../schema.js';

// The statements a payment report makes are compiled once per database (prepared.ts, prepared-rows.ts):
// a payment storm runs them thousands of times a second, and building them cost as much as running them.
const paymentsInsert = prepareRowsQuery((db: Kysely<DB>, rows: readonly PaymentsTable[], _p: Record<string, never>) =>
  db
    .insertInto('payments')
    .values([...rows])
    .onConflict((oc) => oc.columns(['source', 'source_payment_id']).doNothing())
    .returning('id'),
);
// Each key probed through the unique index on its own. The obvious `(source, source_payment_id) IN
// ((...), ...)` let PostgreSQL factor out the `source` every key of a storm shares and scan the index by
// source alone, filtering ids, whenever its statistics thought that source rare (a source added since the
// last ANALYZE: every new source, and on a large table for a long while): 6.4 ms per 32-key read in a
// payment storm, half of PostgreSQL's CPU. A plain join of the keys to payments still let it hash the whole
// table while its statistics thought the table small (1-2 ms a read, early in a storm on a new gateway), so
// on PostgreSQL each key is a lateral subquery the planner cannot fold into a join. SQLite plans the join
// as one index lookup per key.
const keysIn = prepareRowsQuery(
  (db: Kysely<DB>, keys: readonly { source: string; sourcePaymentId: string }[], _p: Record<string, never>) => {
    const listed = db
      .with('k(source, source_payment_id)', () =>
        valuesList<{ source: string; source_payment_id: string }>(keys.map((k) => [k.source, k.sourcePaymentId])),
      )
      .selectFrom('k');
    return onPostgres(db)
      ? listed
          .crossJoinLateral((eb) =>
            eb
              .selectFrom('payments as p')
              .select(['p.source', 'p.source_payment_id'])
              .whereRef('p.source', '=', 'k.source')
              .whereRef('p.source_payment_id', '=', 'k.source_payment_id')
              .limit(sql.lit(1))
              .as('p'),
          )
          .select(['p.source', 'p.source_payment_id'])
      : listed
          .innerJoin('payments as p', (join) =>
            join.onRef('p.source', '=', 'k.source').onRef('p.source_payment_id', '=', 'k.source_payment_id'),
          )
          .select(['p.source', 'p.source_payment_id']);
  },
);
// On PostgreSQL each amount is looked up through reserved_totals' primary key on its own (a lateral
// subquery the planner cannot fold into a join), as readReservationsAt does and for the same reason: with
// statistics older than a storm's reservations, the IN-list's plan read the merchant's reservations, or
// all of them and every transaction, to pick out a few (1.5 ms a batch where the lookups take 0.1).
type Candidate = TransactionsTable & { reserved_total: number };
/** What pads the amounts' list: no reservation's total (a positive amount plus a code) is ever this. */
const NO_AMOUNT = -1;
const candidatesByAmounts = prepareRowsQuery<
  DB,
  { amount: number },
  { merchantId: string; mode: Mode; now: number },
  Candidate
>((db, amounts, p) =>
  onPostgres(db)
    ? db
        .with('k(total_amount)', () =>
          valuesList<{ total_amount: number }>(amounts.map((a) => [sql`cast(${a.amount} as bigint)`])),
        )
        .selectFrom('k')
        .crossJoinLateral((eb) =>
          eb
            .selectFrom('reserved_totals as r')
            .innerJoin('transactions as t', 't.id', 'r.transaction_id')
            .selectAll('t')
            .select('r.total_amount as reserved_total')
            .where('r.merchant_id', '=', p.merchantId)
            .where('r.mode', '=', p.mode)
            .whereRef('r.total_amount', '=', 'k.total_amount')
            .where('r.reserved_until', '>', p.now)
            .limit(sql.lit(1))
            .as('c'),
        )
        .selectAll('c')
    : db
        .selectFrom('reserved_totals as r')
        .innerJoin('transactions as t', 't.id', 'r.transaction_id')
        .selectAll('t')
        .select('r.total_amount as reserved_total')
        .where('r.merchant_id', '=', p.merchantId)
        .where('r.mode', '=', p.mode)
        .where(
          'r.total_amount',
          'in',
          amounts.map((a) => a.amount),
        )
        .where('r.reserved_until', '>', p.now),
);
const reasonUpdate = prepareQuery((db: Kysely<DB>, p: { id: string; reason: string; compared: string | null }) =>
  db.updateTable('payments').set({ reason: p.reason, compared_transaction_id: p.compared }).where('id', '=', p.id),
);
const bindUpdate = prepareQuery((db: Kysely<DB>, p: { id: string; transactionId: string }) =>
  db
    .updateTable('payments')
    .set({ status: 'matched', reason: null, transaction_id: p.transactionId })
    .where('id', '=', p.id)
    .where('status', '=', 'unmatched')
    .returning('id'),
);
type PaidParameters = {
  id: string;
  paymentId: string;
  paidAt: number;
  amountPaid: number;
  underpaid: number;
  overpaid: number;
  now: number;
  amountPaidBefore: number;
};
const paidUpdate = (late: boolean) =>
  prepareQuery((db: Kysely<DB>, p: PaidParameters) =>
    db
      .updateTable('transactions')
      .set({
        status: 'paid',
        paid_at: p.paidAt,
        amount_paid: p.amountPaid,
        underpaid: p.underpaid,
        overpaid: p.overpaid,
        // The caller judged lateness on the row it read. A cancel or the expiry sweeper may have committed
        // since (PostgreSQL runs them side by side): the row as it is when updated decides too, so a
        // transaction cancelled a moment before its money arrived is paid late, never plainly paid.
        paid_late: late ? sql<number>`1` : sql<number>`case when status = 'pending' then 0 else 1 end`,
        payment_id: p.paymentId,
        updated_at: p.now,
      })
      .where('id', '=', p.id)
      .where('status', '!=', 'paid')
      .where('amount_paid', '=', p.amountPaidBefore)
      .returningAll(),
  );
const paidLate = paidUpdate(true);
const paidOnTime = paidUpdate(false);

/**
 * Stores reported payments in one statement, each unless its (source, source_payment_id) is stored
 * already: the ids of those stored. No two rows may share a (source, source_payment_id).
 */
export async function insertPaymentsUnlessDuplicate(trx: Tx, rows: readonly PaymentsTable[]): Promise<Set<string>> {
  const stored = await paymentsInsert.execute(trx, rows, {});
  return new Set(stored.map((r) => r.id));
}

/**
 * Which of these (source, source_payment_id) keys are stored, as `source\u0000source_payment_id`: one
 * statement, the list padded to a power of two so its texts are few.
 */
export async function storedPaymentKeys(
  db: Executor,
  keys: readonly { source: string; sourcePaymentId: string }[],
): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await keysIn.execute(db, padToPowerOfTwo(keys), {});
  return new Set(rows.map((r) => `${r.source}\u0000${r.source_payment_id}`));
}

/**
 * For each of these amounts, the transactions holding it as their reserved unique total at `now`
 * (reservation not yet past its time), of the merchant and mode: one statement for many amounts (the
 * list padded to a power of two, so its texts are few).
 */
export async function paymentCandidatesByAmounts(
  db: Executor,
  query: { merchantId: string; mode: Mode; amounts: readonly number[]; now: number },
): Promise<Map<number, TransactionsTable[]>> {
  const distinct = [...new Set(query.amounts)];
  const byAmount = new Map<number, TransactionsTable[]>(distinct.map((a) => [a, []]));
  if (distinct.length === 0) return byAmount;
  // Padded to a power of two with an amount no reservation holds (totals are positive), not by repeating
  // one: PostgreSQL's per-amount form would answer a repeated amount once per repeat.
  const list = Array.from({ length: 2 ** Math.ceil(Math.log2(distinct.length)) }, (_, i) => ({
    amount: distinct[i] ?? NO_AMOUNT,
  }));
  const rows = await candidatesByAmounts.execute(db, list, {
    merchantId: query.merchantId,
    mode: query.mode,
    now: query.now,
  });
  for (const { reserved_total, ...tx } of rows) byAmount.get(Number(reserved_total))?.push(tx);
  return byAmount;
}

/** Stores a reported payment unless (source, source_payment_id) is already stored; true when stored. */
export async function insertPaymentUnlessDuplicate(trx: Tx, payment: PaymentsTable): Promise<boolean> {
  const stored = await trx
    .insertInto('payments')
    .values(payment)
    .onConflict((oc) => oc.columns(['source', 'source_payment_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return stored !== undefined;
}

/** The stored payment of one source's payment id (which must exist). */
export async function paymentBySourceId(db: Executor, source: string, sourcePaymentId: string): Promise<PaymentsTable> {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('source', '=', source)
    .where('source_payment_id', '=', sourcePaymentId)
    .executeTakeFirstOrThrow();
}

export async function setPaymentReason(
  trx: Tx,
  paymentId: string,
  reason: string,
  comparedTransactionId: string | null,
): Promise<void> {
  await reasonUpdate.execute(trx, { id: paymentId, reason, compared: comparedTransactionId });
}

/** Binds an unmatched payment to a transaction; false when it is no longer unmatched. */
export async function bindUnmatchedPayment(trx: Tx, paymentId: string, transactionId: string): Promise<boolean> {
  const bound = await bindUpdate.execute(trx, { id: paymentId, transactionId });
  return bound.length === 1;
}

/**
 * Reported payments, newest first, optionally of one status and merchant, or only double payments
 * (unmatched because their transaction was paid already); each with the id of its refund, if any.
 */
export async function listPaymentRows(
  db: Db,
  filter: { status?: PaymentStatus; double?: boolean; merchantId?: string; limit: number },
): Promise<(PaymentsTable & { refund_id: string | null })[]> {
  let query = db
    .selectFrom('payments as p')
    .leftJoin('refunds as r', 'r.payment_id', 'p.id')
    .selectAll('p')
    .select('r.id as refund_id');
  if (filter.status) query = query.where('p.status', '=', filter.status);
  if (filter.double) {
    query = query
      .where('p.status', '=', 'unmatched')
      .where('p.reason', '=', 'transaction_already_paid')
      .where('p.compared_transaction_id', 'is not', null);
  }
  if (filter.merchantId) query = query.where('p.merchant_id', '=', filter.merchantId);
  return query.orderBy('p.received_at', 'desc').orderBy('p.id', 'desc').limit(filter.limit).execute();
}

/**
 * Marks a transaction paid by a payment unless it is paid already, or received another part payment
 * since the caller read `amountPaidBefore`; undefined then. The conditional update is the guard that
 * holds when two payments race for one transaction: neither amount is lost, the loser reads again.
 */
export function markTransactionPaid(
  trx: Tx,
  transactionId: string,
  paid: PaidValues,
): Promise<TransactionsTable | undefined> {
  const { late, ...values } = paid;
  return (late ? paidLate : paidOnTime).executeTakeFirst(trx, { id: transactionId, ...values });
}

/** What paying a transaction sets (markTransactionPaid). */
export interface PaidValues {
  paymentId: string;
  paidAt: number;
  late: boolean;
  now: number;
  amountPaidBefore: number;
  amountPaid: number;
  underpaid: number;
  overpaid: number;
}

/** One transaction a batch of payment reports pays, with the state it was read in (markTransactionsPaid). */
export interface PaidUpdate {
  id: string;
  /** The status and amount paid the row was read with: it is paid only if it still has them. */
  expectedStatus: string;
  amountPaidBefore: number;
  paymentId: string;
  paidAt: number;
  amountPaid: number;
  underpaid: number;
  overpaid: number;
  paidLate: 0 | 1;
  now: number;
}

/**
 * Marks several transactions paid in one statement, each only if it still has the status and amount paid
 * it was read with; the ids of those marked. A batch of reports that gets fewer back lost a race to
 * another unit of work and is recorded again report by report (record-payment.ts).
 */
export async function markTransactionsPaid(trx: Tx, updates: readonly PaidUpdate[]): Promise<Set<string>> {
  if (updates.length === 0) return new Set();
  // A derived table of one row per update: SELECT ... UNION ALL reads the same on SQLite and PostgreSQL
  // (SQLite has no column list for VALUES), the casts give PostgreSQL the parameters' types.
  const values = sql.join(
    updates.map(
      (u) =>
        sql`select cast(${u.id} as text) as id, cast(${u.expectedStatus} as text) as expected_status, cast(${u.amountPaidBefore} as bigint) as before, cast(${u.paymentId} as text) as payment_id, cast(${u.paidAt} as bigint) as paid_at, cast(${u.amountPaid} as bigint) as amount_paid, cast(${u.underpaid} as bigint) as underpaid, cast(${u.overpaid} as bigint) as overpaid, cast(${u.paidLate} as integer) as paid_late, cast(${u.now} as bigint) as updated_at`,
    ),
    sql` union all `,
  );
  const result = await sql<{ id: string }>`update transactions set status = 'paid', paid_at = v.paid_at,
    amount_paid = v.amount_paid, underpaid = v.underpaid, overpaid = v.overpaid, paid_late = v.paid_late,
    payment_id = v.payment_id, updated_at = v.updated_at
    from (${values}) as v
    where transactions.id = v.id and transactions.status = v.expected_status and transactions.amount_paid = v.before
    returning transactions.id`.execute(trx);
  return new Set(result.rows.map((r) => r.id));
}

/**
 * Adds a part payment to an unpaid transaction kept open for the rest: its status stays, amount_paid
 * becomes the sum and underpaid the rest still due. Undefined, having changed nothing, when it was paid
 * or received another part since the caller read `amountPaidBefore` (two assigns at once: the loser
 * reads again, so neither amount is lost).
 */
export function addPartPayment(
  trx: Tx,
  transactionId: string,
  part: { amountPaidBefore: number; amountPaid: number; underpaid: number; now: number },
): Promise<TransactionsTable | undefined> {
  return trx
    .updateTable('transactions')
    .set({ amount_paid: part.amountPaid, underpaid: part.underpaid, overpaid: 0, updated_at: part.now })
    .where('id', '=', transactionId)
    .where('status', '!=', 'paid')
    .where('amount_paid', '=', part.amountPaidBefore)
    .returningAll()
    .executeTakeFirst();
}

/** A transaction by id, only if it is of the given merchant and mode. */
export async function paymentTransactionOf(
  db: Executor,
  id: string,
  owner: { merchantId: string; mode: Mode },
): Promise<TransactionsTable | undefined> {
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('id', '=', id)
    .where('merchant_id', '=', owner.merchantId)
    .where('mode', '=', owner.mode)
    .executeTakeFirst();
}

/**
 * The merchant and mode's transactions (at most 10) whose id is `trxid` or `reference`, or whose
 * acquirer reference is `reference`. At least one of the two must be given.
 */
export async function paymentCandidatesByName(
  db: Executor,
  names: { merchantId: string; mode: Mode; trxid: string | null; reference: string | null },
): Promise<TransactionsTable[]> {
  const { trxid, reference } = names;
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('merchant_id', '=', names.merchantId)
    .where('mode', '=', names.mode)
    .where((eb) => {
      const ors = [];
      if (trxid !== null) ors.push(eb('id', '=', trxid));
      if (reference !== null) ors.push(eb('id', '=', reference), eb('acquirer_reference', '=', reference));
      return eb.or(ors);
    })
    .limit(10)
    .execute();
}

/** The payments bound to a transaction (normally one), in the order they were received. */
export async function paymentsOfTransaction(db: Executor, transactionId: string): Promise<PaymentsTable[]> {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('transaction_id', '=', transactionId)
    .orderBy('received_at')
    .orderBy('id')
    .execute();
}

/**
 * The double payments of a paid transaction: payments the matcher refused because it was paid already,
 * kept unmatched beside it. Read along payments_status (merchant_id, status, received_at) from the
 * transaction's creation on: the merchant's unmatched payments since then, which are few.
 */
export async function doublePaymentsOfTransaction(
  db: Db,
  tx: Pick<TransactionsTable, 'id' | 'merchant_id' | 'created_at'>,
): Promise<PaymentsTable[]> {
  return db
    .selectFrom('payments')
    .selectAll()
    .where('merchant_id', '=', tx.merchant_id)
    .where('status', '=', 'unmatched')
    .where('received_at', '>=', tx.created_at)
    .where('compared_transaction_id', '=', tx.id)
    .where('reason', '=', 'transaction_already_paid')
    .orderBy('received_at')
    .orderBy('id')
    .execute();
}

/**
 * Holds a paid transaction's row until the unit of work ends, so two reports of its amount at once are
 * counted one after the other (isCorroboration): on PostgreSQL a row lock; SQLite runs one writer at a time,
 * and a report's unit of work has written its payment before it asks.
 */
export async function lockTransactionForReports(trx: Tx, dialect: Dialect, transactionId: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await trx.selectFrom('transactions').select('id').where('id', '=', transactionId).forUpdate().execute();
}

/**
 * The reports of a paid transaction's amount, dated within [from, to], other than `exceptId`: the payment
 * that paid it, and those bound to it as corroborations or refused as its double payments.
 */
export async function reportsOfPaidTransaction(
  trx: Tx,
  tx: Pick<TransactionsTable, 'id' | 'merchant_id'>,
  filter: { amount: number; from: number; to: number; exceptId: string },
): Promise<Array<{ source: string }>> {
  return trx
    .selectFrom('payments')
    .select('source')
    .where('merchant_id', '=', tx.merchant_id)
    .where('amount', '=', filter.amount)
    .where('paid_at', '>=', filter.from)
    .where('paid_at', '<=', filter.to)
    .where('id', '!=', filter.exceptId)
    .where((eb) =>
      eb.or([
        eb('transaction_id', '=', tx.id),
        eb.and([
          eb('compared_transaction_id', '=', tx.id),
          eb('reason', '=', 'transaction_already_paid'),
          eb('status', '=', 'unmatched'),
        ]),
      ]),
    )
    .execute();
}

/** Binds an unmatched report to the transaction another source's report of the same payment paid. */
export async function bindCorroboration(
  trx: Tx,
  paymentId: string,
  transactionId: string,
  reason: string,
): Promise<void> {
  await trx
    .updateTable('payments')
    .set({ status: 'matched', reason, transaction_id: transactionId, compared_transaction_id: null })
    .where('id', '=', paymentId)
    .where('status', '=', 'unmatched')
    .execute();
}
