// The console's reads of reported payments: a viewer's page of them and the transactions an unmatched
// one could belong to. `merchants` null means every merchant (an operator); a list limits the rows to
// those merchants in the SQL itself.
import { sql } from 'kysely';
import type { Db, Executor } from '../executor.js';
import type { Mode, PaymentStatus, PaymentsTable, TransactionStatus, TransactionsTable } from '../schema.js';

type Scope = readonly string[] | null;

/**
 * A payment as the console lists it: the stored row, the state of the transaction it pays, and the
 * refund of a double payment the merchant paid back (null otherwise).
 */
export type PaymentListRow = PaymentsTable & {
  transaction_status: TransactionStatus | null;
  transaction_paid_late: number | null;
  refund_id: string | null;
  refund_reference: string | null;
  refund_created_at: number | null;
};

/**
 * Which payments a list shows: one status, or 'double': the unmatched ones refused because their
 * transaction was paid already (double payments), refunded or not.
 */
export type PaymentListFilter = PaymentStatus | 'double';

/**
 * Payments of one status newest first (by received_at, then id), after `before` when given: read along
 * the payments_status_received index (or payments_status, for one merchant). The mode (and a double
 * payment's reason) is checked on the rows read.
 */
export async function paymentPage(
  db: Db,
  filter: {
    merchants: Scope;
    status: PaymentListFilter;
    mode: Mode | null;
    before: { receivedAt: number; id: string } | null;
    limit: number;
  },
): Promise<PaymentListRow[]> {
  if (filter.merchants !== null && filter.merchants.length === 0) return [];
  let q = db
    .selectFrom('payments as p')
    .leftJoin('transactions as t', 't.id', 'p.transaction_id')
    .leftJoin('refunds as r', 'r.payment_id', 'p.id')
    .selectAll('p')
    .select([
      't.status as transaction_status',
      't.paid_late as transaction_paid_late',
      'r.id as refund_id',
      'r.reference as refund_reference',
      'r.created_at as refund_created_at',
    ]);
  if (filter.merchants !== null) q = q.where('p.merchant_id', 'in', filter.merchants);
  if (filter.status === 'double') {
    q = q
      .where('p.status', '=', 'unmatched')
      .where('p.reason', '=', 'transaction_already_paid')
      .where('p.compared_transaction_id', 'is not', null);
  } else {
    q = q.where('p.status', '=', filter.status);
  }
  if (filter.mode !== null) q = q.where('p.mode', '=', filter.mode);
  const before = filter.before;
  if (before !== null) {
    q = q.where((eb) =>
      eb.or([
        eb('p.received_at', '<', before.receivedAt),
        eb.and([eb('p.received_at', '=', before.receivedAt), eb('p.id', '<', before.id)]),
      ]),
    );
  }
  return q.orderBy('p.received_at', 'desc').orderBy('p.id', 'desc').limit(filter.limit).execute();
}

/** A payment by id, only if it is of one of these merchants (all when null). */
export async function paymentInScope(db: Executor, id: string, merchants: Scope): Promise<PaymentsTable | undefined> {
  if (merchants !== null && merchants.length === 0) return undefined;
  let q = db.selectFrom('payments').selectAll().where('id', '=', id);
  if (merchants !== null) q = q.where('merchant_id', 'in', merchants);
  return q.executeTakeFirst();
}

/**
 * The transactions an unmatched payment of `amount` could belong to, nearest first: those whose total is
 * `amount` (or, kept open after a part payment, whose rest is); then, among the pending ones, those
 * whose price is `amount` or whose total lies within `near` of it (a payer who left out the unique code,
 * or typed it wrong), by distance; newest first among equals. Read along transactions_list (merchant_id,
 * mode, created_at) within the creation window, at most `limit` rows.
 */
export async function unpaidTransactionsOfTotal(
  db: Db,
  query: {
    merchantId: string;
    mode: Mode;
    amount: number;
    near: number;
    createdFrom: number;
    createdTo: number;
    endedAfter: number;
    limit: number;
  },
): Promise<TransactionsTable[]> {
  const rest = sql<number>`total_amount - coalesce(amount_paid, 0)`;
  return db
    .selectFrom('transactions')
    .selectAll()
    .where('merchant_id', '=', query.merchantId)
    .where('mode', '=', query.mode)
    .where('created_at', '>=', query.createdFrom)
    .where('created_at', '<=', query.createdTo)
    .where('status', '!=', 'paid')
    .where((eb) =>
      eb.or([
        eb.and([
          eb('total_amount', '=', query.amount),
          eb.or([
            eb.and([eb('cancelled_at', 'is', null), eb('expires_at', '>=', query.endedAfter)]),
            eb.and([eb('cancelled_at', 'is not', null), eb('cancelled_at', '>=', query.endedAfter)]),
          ]),
        ]),
        // One kept open after a part payment waits for its rest, however long after it ended.
        eb.and([eb('amount_paid', '>', 0), eb(eb('total_amount', '-', eb.ref('amount_paid')), '=', query.amount)]),
        // A pending one the payment came close to: its price, or a total within the unique codes' range.
        eb.and([
          eb('status', '=', 'pending'),
          eb('expires_at', '>=', query.endedAfter),
          eb.or([
            eb('amount', '=', query.amount),
            eb.and([
              eb('total_amount', '>=', query.amount - query.near),
              eb('total_amount', '<=', query.amount + query.near),
            ]),
          ]),
        ]),
      ]),
    )
    .orderBy(sql`abs(${rest} - ${query.amount})`)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(query.limit)
    .execute();
}
