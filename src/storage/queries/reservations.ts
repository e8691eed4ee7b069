import { type Kysely, sql } from 'kysely';
import { onPostgres, valuesList } from '../engine/key-list.js';
import type { Db, Executor, Tx } from '../executor.js';
import { prepareQuery } from '../engine/prepared.js';
import { prepareRowsQuery } from '../engine/prepared-rows.js';
import type { DB, Mode, ReservedTotalsTable } from '../schema.js';

// reserved_totals: a merchant's held totals (amount + unique code) per mode. Its primary key (merchant,
// mode, total) is what keeps totals unique among open transactions.

/** A reservation as the unique-code rules read it. */
export interface Reservation {
  total_amount: number;
  reserved_until: number;
}

// A merchant's reservations of some totals, and of a range of totals: read by the one-by-one claim and by
// batched creates, compiled once per database (and list length).
//
// On PostgreSQL each total is looked up through the primary key on its own (a lateral subquery, which the
// planner cannot fold into a join). `total_amount IN (...)` let it read the index by merchant and mode
// alone and filter the totals whenever its statistics thought the merchant had few reservations (a
// merchant or a flash sale since the last ANALYZE): every create batch then read all the merchant's
// reservations, 0.8 to 2 ms a batch in the bench's fresh creates, 44% of PostgreSQL's time. SQLite plans the
// IN-list as one key lookup per total.
const reservationsAt = prepareRowsQuery(
  (db: Kysely<DB>, totals: readonly { total: number }[], p: { merchantId: string; mode: Mode }) =>
    onPostgres(db)
      ? db
          .with('k(total_amount)', () =>
            valuesList<{ total_amount: number }>(totals.map((t) => [sql`cast(${t.total} as bigint)`])),
          )
          .selectFrom('k')
          .crossJoinLateral((eb) =>
            eb
              .selectFrom('reserved_totals as r')
              .select(['r.total_amount', 'r.reserved_until'])
              .where('r.merchant_id', '=', p.merchantId)
              .where('r.mode', '=', p.mode)
              .whereRef('r.total_amount', '=', 'k.total_amount')
              .limit(sql.lit(1))
              .as('r'),
          )
          .select(['r.total_amount', 'r.reserved_until'])
      : db
          .selectFrom('reserved_totals')
          .select(['total_amount', 'reserved_until'])
          .where('merchant_id', '=', p.merchantId)
          .where('mode', '=', p.mode)
          .where(
            'total_amount',
            'in',
            totals.map((t) => t.total),
          ),
);
const reservationsBetween = prepareQuery(
  (db: Kysely<DB>, p: { merchantId: string; mode: Mode; from: number; to: number }) =>
    db
      .selectFrom('reserved_totals')
      .select(['total_amount', 'reserved_until'])
      .where('merchant_id', '=', p.merchantId)
      .where('mode', '=', p.mode)
      .where('total_amount', '>=', p.from)
      .where('total_amount', '<=', p.to),
);

/** The merchant's reservations (of one mode) of these totals (not empty); totals with none are absent. */
export function readReservationsAt(
  db: Executor,
  merchantId: string,
  mode: Mode,
  totals: readonly number[],
): Promise<Reservation[]> {
  // Each total once: PostgreSQL's form answers once per total asked, where an IN-list answers once per row.
  return reservationsAt.execute(
    db,
    [...new Set(totals)].map((total) => ({ total })),
    { merchantId, mode },
  );
}

/** The merchant's reservations (of one mode) of totals from `from` to `to`, both included. */
export function readReservationsBetween(
  db: Executor,
  merchantId: string,
  mode: Mode,
  from: number,
  to: number,
): Promise<Reservation[]> {
  return reservationsBetween.execute(db, { merchantId, mode, from, to });
}

// A batch's reservations in one insert, compiled once per batch size (prepared-rows.ts).
const reserveTotalsInsert = prepareRowsQuery(
  (db: Kysely<DB>, rows: readonly ReservedTotalsTable[], _p: Record<string, never>) =>
    db
      .insertInto('reserved_totals')
      .values([...rows])
      .onConflict((oc) => oc.columns(['merchant_id', 'mode', 'total_amount']).doNothing())
      .returning('transaction_id'),
);

/**
 * Inserts these reservations (not empty) in one statement, skipping every total another row holds; the
 * transaction ids whose reservation was inserted. Insert them sorted, so two batches take key locks in
 * the same order.
 */
export async function reserveFreeTotals(trx: Tx, rows: readonly ReservedTotalsTable[]): Promise<Set<string>> {
  const won = await reserveTotalsInsert.execute(trx, rows, {});
  return new Set(won.map((r) => r.transaction_id));
}

/**
 * Reserves one total for the transaction unless a row holds it (INSERT .. DO NOTHING, which locks no row
 * it skips); the transaction id of the inserted row, or undefined.
 */
export async function reserveTotalIfFree(trx: Tx, row: ReservedTotalsTable): Promise<string | undefined> {
  const won = await trx
    .insertInto('reserved_totals')
    .values(row)
    .onConflict((oc) => oc.columns(['merchant_id', 'mode', 'total_amount']).doNothing())
    .returning('transaction_id')
    .executeTakeFirst();
  return won?.transaction_id;
}

/**
 * Takes over a reservation that had lapsed by `now` (the condition is re-checked, so no row is locked
 * that is not taken); the new transaction id, or undefined when the row was not lapsed.
 */
export async function reclaimLapsedTotal(trx: Tx, row: ReservedTotalsTable, now: number): Promise<string | undefined> {
  const won = await trx
    .updateTable('reserved_totals')
    .set({ transaction_id: row.transaction_id, reserved_until: row.reserved_until })
    .where('merchant_id', '=', row.merchant_id)
    .where('mode', '=', row.mode)
    .where('total_amount', '=', row.total_amount)
    .where('reserved_until', '<=', now)
    .returning('transaction_id')
    .executeTakeFirst();
  return won?.transaction_id;
}

/** Ends the transaction's reservation at `until`, unless it ends earlier already. */
export async function shortenReservation(trx: Tx, transactionId: string, until: number): Promise<void> {
  await trx
    .updateTable('reserved_totals')
    .set({ reserved_until: until })
    .where('transaction_id', '=', transactionId)
    .where('reserved_until', '>', until)
    .execute();
}

/** Deletes the reservations that ended at or before `now`. */
export async function deleteEndedReservations(db: Db, now: number): Promise<void> {
  await db.deleteFrom('reserved_totals').where('reserved_until', '<=', now).execute();
}
