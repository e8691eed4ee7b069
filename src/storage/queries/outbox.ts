// The outbox: events (one row per state change a merchant hears of) and the e-mails queued with them,
// both written in the unit of work of the change itself.
import type { Kysely } from 'kysely';
import { prepareRowsQuery } from '../engine/prepared-rows.js';
import type { Db, Executor } from '../executor.js';
import type { DB, EmailsTable, EventsTable } from '../schema.js';

// Compiled once per database and row count (prepared-rows.ts): every payment writes an event.
const eventsInsert = prepareRowsQuery((db: Kysely<DB>, rows: readonly EventsTable[], _p: Record<string, never>) =>
  db.insertInto('events').values([...rows]),
);

export async function insertEvent(db: Executor, event: EventsTable): Promise<void> {
  await eventsInsert.execute(db, [event], {});
}

/** Several events in one statement (a batch of payment reports). */
export async function insertEvents(db: Executor, events: readonly EventsTable[]): Promise<void> {
  if (events.length > 0) await eventsInsert.execute(db, events, {});
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
