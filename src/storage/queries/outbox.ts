// The outbox: events (one row per state change a merchant hears of) and the e-mails queued with them,
// both written in the unit of work of the change itself.
import { type Kysely, type QueryCreator, sql } from 'kysely';
import { prepareRowsQuery } from '../engine/prepared-rows.js';
import type { Db, Executor } from '../executor.js';
import type { DB, EmailsTable, EventsTable } from '../schema.js';
import { canNotify, STATUS_CHANNEL } from './status-notify.js';

/** The events insert, alone or as the CTE of the statement that also NOTIFYs (below). */
function buildEventsInsert(db: QueryCreator<DB>, rows: readonly EventsTable[]) {
  return db.insertInto('events').values([...rows]);
}

// Compiled once per database and row count (prepared-rows.ts): every payment writes an event.
const eventsInsert = prepareRowsQuery((db: Kysely<DB>, rows: readonly EventsTable[], _p: Record<string, never>) =>
  buildEventsInsert(db, rows),
);

// A batch's events and the NOTIFY of the transactions it changed, in one statement: a data-modifying CTE
// runs whether or not the query reads it, and a notification is sent at commit whatever statement of the
// transaction queued it, so this is the two statements it replaces with one round trip fewer (a batch of
// payment reports that pays something).
const eventsInsertNotifying = prepareRowsQuery(
  (db: Kysely<DB>, rows: readonly EventsTable[], p: { trxids: readonly string[] }) =>
    db
      .with('e', (qb) => buildEventsInsert(qb, rows))
      // A function in FROM aliased `t` names its value column `t` too (WITH ORDINALITY adds `ordinality`).
      .selectFrom(sql<{ t: string; ordinality: number }>`unnest(cast(${p.trxids} as text[])) with ordinality`.as('t'))
      .select(sql<string>`pg_notify(${sql.lit(STATUS_CHANNEL)}, t.t)`.as('n'))
      .orderBy('t.ordinality'),
);

export async function insertEvent(db: Executor, event: EventsTable): Promise<void> {
  await eventsInsert.execute(db, [event], {});
}

/** Several events in one statement (a batch of payment reports). */
export async function insertEvents(db: Executor, events: readonly EventsTable[]): Promise<void> {
  if (events.length > 0) await eventsInsert.execute(db, events, {});
}

/**
 * Inserts the events and, on PostgreSQL, NOTIFYs the transactions in the same statement, one notification
 * each, in their order: true when it did (else the caller announces them itself: SQLite, or no events).
 */
export async function insertEventsNotifying(
  db: Executor,
  events: readonly EventsTable[],
  trxids: readonly string[],
): Promise<boolean> {
  if (events.length === 0 || trxids.length === 0 || !canNotify(db)) return false;
  await eventsInsertNotifying.execute(db, events, { trxids: [...trxids] });
  return true;
}

/** An event's id and merchant, if it exists. */
export async function eventMerchant(
  db: Executor,
  eventId: string,
): Promise<{ id: string; merchant_id: string } | undefined> {
  return db.selectFrom('events').select(['id', 'merchant_id']).where('id', '=', eventId).executeTakeFirst();
}

/** Queues an e-mail unless one of its kind is already queued for its transaction. */
export async function insertEmailOnce(db: Executor, email: EmailsTable): Promise<void> {
  await db
    .insertInto('emails')
    .values(email)
    .onConflict((oc) => oc.columns(['transaction_id', 'kind']).doNothing())
    .execute();
}

/** A transaction's events, oldest first (without their payloads). */
export async function eventsOfTransaction(
  db: Db,
  transactionId: string,
): Promise<Array<Pick<EventsTable, 'id' | 'type' | 'created_at'>>> {
  return db
    .selectFrom('events')
    .select(['id', 'type', 'created_at'])
    .where('transaction_id', '=', transactionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Whether the event exists and is about this transaction. */
export async function isEventOfTransaction(db: Db, eventId: string, transactionId: string): Promise<boolean> {
  const found = await db
    .selectFrom('events')
    .select('id')
    .where('id', '=', eventId)
    .where('transaction_id', '=', transactionId)
    .executeTakeFirst();
  return found !== undefined;
}
