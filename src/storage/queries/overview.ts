// The console overview's counts and sums. Each read is bounded by an index: paid transactions by the
// partial index on paid_at (migration 007), pending by transactions_due, unmatched payments by
// payments_status_received. `merchants` null means every merchant (an operator); a list limits it.
import { sql } from 'kysely';
import type { Db } from '../executor.js';
import type { Mode } from '../schema.js';

type Scope = readonly string[] | null;

/** Paid transactions per WIB day since `since`: [{ day, count, sum }], day = days since the epoch in WIB. */
export async function paidPerDay(
  db: Db,
  merchants: Scope,
  mode: Mode,
  since: number,
  offsetMs: number,
): Promise<{ day: number; count: number; sum: number }[]> {
  if (merchants !== null && merchants.length === 0) return [];
  // A literal, not a parameter: PostgreSQL must see the select's expression and the group's as the same.
  const day = sql<number>`(paid_at + ${sql.lit(Math.trunc(offsetMs))}) / 86400000`;
  let q = db
    .selectFrom('transactions')
    .select([
      day.as('day'),
      (eb) => eb.fn.countAll<number>().as('count'),
      (eb) => eb.fn.sum<number>('total_amount').as('sum'),
    ])
    .where('paid_at', '>=', since)
    .where('status', '=', 'paid')
    .where('mode', '=', mode);
  if (merchants !== null) q = q.where('merchant_id', 'in', merchants);
  const rows = await q.groupBy(day).execute();
  return rows.map((r) => ({ day: Math.floor(Number(r.day)), count: Number(r.count), sum: Number(r.sum ?? 0) }));
}

export async function countOpenPending(db: Db, merchants: Scope, mode: Mode, now: number): Promise<number> {
  if (merchants !== null && merchants.length === 0) return 0;
  let q = db
    .selectFrom('transactions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .where('mode', '=', mode);
  if (merchants !== null) q = q.where('merchant_id', 'in', merchants);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

/** Unmatched payments waiting for a person: a double payment already refunded is not counted. */
export async function countUnmatchedPayments(db: Db, merchants: Scope, mode: Mode): Promise<number> {
  if (merchants !== null && merchants.length === 0) return 0;
  let q = db
    .selectFrom('payments')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', '=', 'unmatched')
    .where('mode', '=', mode)
    // A double payment the merchant has paid back stays unmatched, but nobody needs to review it any more
    // (the lookup is by the refunds' unique index on payment_id).
    .where((eb) =>
      eb.not(
        eb.exists(eb.selectFrom('refunds').select('refunds.id').whereRef('refunds.payment_id', '=', 'payments.id')),
      ),
    );
  if (merchants !== null) q = q.where('merchant_id', 'in', merchants);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

/** How many webhook endpoints these merchants have (any state): none means there is nothing to fail yet. */
export async function countEndpoints(db: Db, merchants: Scope): Promise<number> {
  if (merchants !== null && merchants.length === 0) return 0;
  let q = db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n'));
  if (merchants !== null) q = q.where('merchant_id', 'in', merchants);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

/** Webhook endpoints that are failing (or were disabled after failing), worst first. */
export function failingEndpoints(db: Db, merchants: Scope) {
  if (merchants !== null && merchants.length === 0) return Promise.resolve([]);
  let q = db
    .selectFrom('webhook_endpoints')
    .select(['id', 'merchant_id', 'url', 'status', 'consecutive_failures', 'updated_at'])
    .where('status', '!=', 'active')
    .where('consecutive_failures', '>', 0);
  if (merchants !== null) q = q.where('merchant_id', 'in', merchants);
  return q.orderBy('consecutive_failures', 'desc').limit(20).execute();
}

/** When each of these sources last reported a payment. */
export async function lastReportOfSources(db: Db, sourceIds: readonly string[]): Promise<Map<string, number>> {
  if (sourceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('payments')
    .select(['source', (eb) => eb.fn.max<number>('received_at').as('last')])
    .where('source', 'in', sourceIds)
    .groupBy('source')
    .execute();
  return new Map(rows.map((r) => [r.source, Number(r.last)]));
}

/**
 * Which modes have any transaction created or payment received since `since`, in one round trip. Each
 * EXISTS stops at its first row (transactions_list and payments_status lead with merchant_id for a
 * merchant's user), so a busy gateway does not count its month to learn that it has one.
 */
export async function modesWithActivity(
  db: Db,
  merchants: Scope,
  since: number,
): Promise<{ live: boolean; test: boolean }> {
  if (merchants !== null && merchants.length === 0) return { live: false, test: false };
  const transactions = (mode: Mode) => {
    const q = db
      .selectFrom('transactions')
      .select(sql.lit(1).as('one'))
      .where('mode', '=', mode)
      .where('created_at', '>=', since);
    return merchants === null ? q : q.where('merchant_id', 'in', merchants);
  };
  const payments = (mode: Mode) => {
    const q = db
      .selectFrom('payments')
      .select(sql.lit(1).as('one'))
      .where('mode', '=', mode)
      .where('received_at', '>=', since);
    return merchants === null ? q : q.where('merchant_id', 'in', merchants);
  };
  // Kysely puts a subquery in its own parentheses, which EXISTS needs (and SQLite takes no second pair).
  const any = (mode: Mode) => sql<boolean | number>`(exists ${transactions(mode)} or exists ${payments(mode)})`;
  const row = await db.selectNoFrom([any('live').as('live'), any('test').as('test')]).executeTakeFirstOrThrow();
  // SQLite answers 0/1, PostgreSQL true/false.
  return { live: Boolean(Number(row.live)), test: Boolean(Number(row.test)) };
}
