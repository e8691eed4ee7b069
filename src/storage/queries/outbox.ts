// The outbox: events (one row per state change a merchant hears of) and the e-mails queued with them,
// both written in the unit of work of the change itself.
import type { Db, Executor } from '../executor.js';
import type { EmailsTable, EventsTable } from '../schema.js';

export async function insertEvent(db: Executor, event: EventsTable): Promise<void> {
  await db.insertInto('events').values(event).execute();
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
