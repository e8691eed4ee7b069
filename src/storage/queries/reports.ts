// The daily report's figures, grouped by merchant and WIB day in SQL (one code path for both databases:
// times are integer ms, so the day is (t + 7 h) / 86400000 in integer division on both). `merchants`
// null means every merchant (the operator's view); a list limits it. Each read is bounded by an index:
// payments received by payments_status / payments_status_received (each joined to its transaction by
// primary key and to its refund by refunds_payment), succeeded refunds by refunds_merchant_completed.
import { sql } from 'kysely';
import type { DayFacts, ReceivedKind } from '../../domain/daily-report.js';
import { REPORTED_BY_ANOTHER_SOURCE } from '../../domain/payment.js';
import { WIB_OFFSET_MS } from '../../domain/wib.js';
import type { Executor } from '../executor.js';
import type { Mode } from '../schema.js';

type Scope = readonly string[] | null;

/** A literal, not a parameter: PostgreSQL must see the select's expression and the group's as the same. */
function wibDayOf(column: string) {
  return sql<number>`(${sql.ref(column)} + ${sql.lit(WIB_OFFSET_MS)}) / 86400000`;
}

const n = (v: unknown): number => Number(v ?? 0);

/**
 * Which figure a payment is in (domain/daily-report.ts, ReceivedKind): bound to a paid transaction, bound
 * to one not paid, unmatched and paid back (a refunds row naming it), or unmatched. The cases cover both
 * statuses, so no payment read is left out. Literals, as wibDayOf's: the select's and the group's must match.
 */
const receivedKind = sql<ReceivedKind>`case
  when p.status = ${sql.lit('matched')} and t.status = ${sql.lit('paid')} then ${sql.lit('paid')}
  when p.status = ${sql.lit('matched')} then ${sql.lit('received_open')}
  when r.id is not null then ${sql.lit('returned')}
  else ${sql.lit('unmatched')} end`;

/**
 * The payments received, by the WIB day of received_at, the figure each is in, its source and the cashier
 * who sold its transaction; another source's report of a payment already counted (reason
 * reported_by_another_source) is not money received and is left out. Read along payments_status
 * (merchant_id, status, received_at), or payments_status_received for every merchant.
 */
export async function receivedByDay(
  db: Executor,
  merchants: Scope,
  mode: Mode,
  from: number,
  before: number,
): Promise<DayFacts['received']> {
  if (merchants !== null && merchants.length === 0) return [];
  const day = wibDayOf('p.received_at');
  let q = db
    .selectFrom('payments as p')
    .leftJoin('transactions as t', 't.id', 'p.transaction_id')
    .leftJoin('refunds as r', (join) => join.onRef('r.payment_id', '=', 'p.id').on('r.status', '=', 'succeeded'))
    .select([
      'p.merchant_id',
      day.as('day'),
      receivedKind.as('kind'),
      'p.source',
      't.created_by_user_id',
      (eb) => eb.fn.countAll<number>().as('count'),
      (eb) => eb.fn.sum<number>('p.amount').as('sum'),
    ])
    .where('p.mode', '=', mode)
    .where('p.status', 'in', ['matched', 'unmatched'])
    .where('p.received_at', '>=', from)
    .where('p.received_at', '<', before)
    .where((eb) => eb.or([eb('p.reason', 'is', null), eb('p.reason', '!=', REPORTED_BY_ANOTHER_SOURCE)]));
  if (merchants !== null) q = q.where('p.merchant_id', 'in', merchants);
  const rows = await q.groupBy(['p.merchant_id', day, receivedKind, 'p.source', 't.created_by_user_id']).execute();
  return rows.map((r) => ({
    merchant_id: r.merchant_id,
    day: Math.floor(n(r.day)),
    kind: r.kind,
    source: r.source ?? null,
    cashier: r.created_by_user_id ?? null,
    count: n(r.count),
    sum: n(r.sum),
  }));
}

/**
 * Succeeded transaction refunds by the WIB day they succeeded (completed_at); pending and failed ones moved
 * no money. A double payment's refund (payment_id set) is not one: receivedByDay counts that payment as
 * returned.
 */
export async function refundedByDay(
  db: Executor,
  merchants: Scope,
  mode: Mode,
  from: number,
  before: number,
): Promise<DayFacts['refunded']> {
  if (merchants !== null && merchants.length === 0) return [];
  const day = wibDayOf('completed_at');
  let q = db
    .selectFrom('refunds')
    .select([
      'merchant_id',
      day.as('day'),
      (eb) => eb.fn.countAll<number>().as('count'),
      (eb) => eb.fn.sum<number>('amount').as('sum'),
    ])
    .where('status', '=', 'succeeded')
    .where('mode', '=', mode)
    .where('completed_at', '>=', from)
    .where('completed_at', '<', before)
    .where('payment_id', 'is', null);
  if (merchants !== null) q = q.where('merchant_id', 'in', merchants);
  const rows = await q.groupBy(['merchant_id', day]).execute();
  return rows.map((r) => ({ merchant_id: r.merchant_id, day: Math.floor(n(r.day)), count: n(r.count), sum: n(r.sum) }));
}

/** The merchants whose owners take the daily e-mail and whose report of `day` is not queued yet. */
export async function merchantsDueForDailyReport(db: Executor, day: number): Promise<string[]> {
  const rows = await db
    .selectFrom('merchants as m')
    .select('m.id')
    .where('m.daily_report_email', '=', 1)
    .where('m.disabled_at', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('daily_report_runs as r')
            .select('r.day')
            .whereRef('r.merchant_id', '=', 'm.id')
            .where('r.day', '=', day),
        ),
      ),
    )
    .orderBy('m.id')
    .execute();
  return rows.map((r) => r.id);
}

/** Claims a merchant's day for its report e-mails: true for the one caller whose insert made the row. */
export async function claimDailyReportRun(
  db: Executor,
  run: { merchant_id: string; day: number; mails: number; created_at: number },
): Promise<boolean> {
  const result = await db
    .insertInto('daily_report_runs')
    .values(run)
    .onConflict((oc) => oc.columns(['merchant_id', 'day']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Turns a merchant's daily report e-mail on or off; false when there is no such merchant. */
export async function setDailyReportEmail(db: Executor, merchantId: string, on: boolean): Promise<boolean> {
  const result = await db
    .updateTable('merchants')
    .set({ daily_report_email: on ? 1 : 0 })
    .where('id', '=', merchantId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A merchant's owners who can be mailed: role merchant, address proven, enabled, not deleted. */
export function mailableOwnersOf(db: Executor, merchantId: string): Promise<Array<{ id: string; email: string }>> {
  return db
    .selectFrom('user_merchants')
    .innerJoin('users', 'users.id', 'user_merchants.user_id')
    .select(['users.id', 'users.email'])
    .where('user_merchants.merchant_id', '=', merchantId)
    .where('users.role', '=', 'merchant')
    .where('users.email_verified_at', 'is not', null)
    .where('users.disabled_at', 'is', null)
    .where('users.deleted_at', 'is', null)
    .orderBy('users.id')
    .execute();
}

/** The e-mail addresses of these users (the cashiers a report names), by id. */
export async function emailsOfUsers(db: Executor, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('users').select(['id', 'email']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.email]));
}
