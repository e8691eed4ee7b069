// Webhook deliveries (one per event and endpoint) and their attempts.
import { type Kysely, sql } from 'kysely';
import { prepareRowsQuery } from '../engine/prepared-rows.js';
import type { Db, Executor, Tx } from '../executor.js';
import type { DB, DeliveriesTable, EventType } from '../schema.js';

const deliveriesInsert = prepareRowsQuery(
  (db: Kysely<DB>, rows: readonly DeliveriesTable[], _p: Record<string, never>) =>
    db.insertInto('deliveries').values([...rows]),
);
import { type DueJobs, dueAt, olderThan } from './outbox-jobs.js';

/** A due delivery with what sending it needs. */
export interface DueDelivery {
  id: string;
  eventId: string;
  eventType: EventType;
  endpointId: string;
  url: string;
  secret: string;
  /** The event's stored body, posted byte for byte. */
  payload: string;
  /** Attempts made before this one. */
  attempts: number;
}

/**
 * Up to `limit` deliveries due at `now`, unclaimed, to enabled endpoints of enabled merchants, in the
 * order they go out (or the one of id `only`, if it is due). With `skipLocked` (PostgreSQL, inside a
 * unit of work) it locks the delivery rows it returns (FOR UPDATE OF d) and skips rows another
 * transaction has locked, so concurrent dispatchers pick disjoint rows instead of queueing on each other's.
 */
export async function dueDeliveries(db: Executor, due: DueJobs): Promise<DueDelivery[]> {
  const { now } = due;
  let query = db
    .selectFrom('deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    // A disabled merchant's deliveries wait (they go out if an operator enables it again).
    .innerJoin('merchants as m', 'm.id', 'w.merchant_id')
    .select([
      'd.id',
      'd.event_id as eventId',
      'e.type as eventType',
      'd.endpoint_id as endpointId',
      'w.url',
      'w.secret',
      'e.payload',
      'd.attempts',
    ])
    .where(dueAt('d', now))
    .where('w.status', '!=', 'disabled')
    .where('m.disabled_at', 'is', null)
    // Per endpoint and transaction, events go out in the order they happened: a delivery waits while
    // an earlier event of its transaction is still pending for the same endpoint (retrying included).
    // Both lookups are index probes (events by transaction, deliveries by event and endpoint).
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('events as e2')
            .innerJoin('deliveries as d2', 'd2.event_id', 'e2.id')
            .select(sql<number>`1`.as('one'))
            .whereRef('e2.transaction_id', '=', 'e.transaction_id')
            .whereRef('d2.endpoint_id', '=', 'd.endpoint_id')
            .where('d2.status', '=', 'pending')
            .where((eb) =>
              eb.or([
                eb('e2.created_at', '<', eb.ref('e.created_at')),
                eb.and([eb('e2.created_at', '=', eb.ref('e.created_at')), eb('e2.id', '<', eb.ref('e.id'))]),
              ]),
            ),
        ),
      ),
    )
    .orderBy('d.next_attempt_at')
    .orderBy('e.created_at')
    .limit(due.limit);
  if (due.only !== undefined) query = query.where('d.id', '=', due.only);
  return (due.skipLocked ? query.forUpdate('d').skipLocked() : query).execute();
}

export async function insertDeliveries(db: Executor, deliveries: readonly DeliveriesTable[]): Promise<void> {
  if (deliveries.length > 0) await deliveriesInsert.execute(db, deliveries, {});
}

/** Ids of an event's deliveries to enabled endpoints, or to one endpoint. */
export async function deliveryIdsOfEvent(trx: Tx, eventId: string, endpointId: string | null): Promise<string[]> {
  let query = trx
    .selectFrom('deliveries as d')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .select('d.id')
    .where('d.event_id', '=', eventId)
    .where('w.status', '!=', 'disabled');
  if (endpointId !== null) query = query.where('d.endpoint_id', '=', endpointId);
  return (await query.execute()).map((r) => r.id);
}

/** Ids of an endpoint's deliveries that ran out of retries. */
export async function failedDeliveryIdsOf(trx: Tx, endpointId: string): Promise<string[]> {
  const rows = await trx
    .selectFrom('deliveries')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'failed')
    .execute();
  return rows.map((r) => r.id);
}

/** Puts deliveries back in the queue: pending, due now, no attempts, unclaimed. Nothing for no ids. */
export async function requeueDeliveries(trx: Tx, ids: string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await trx
    .updateTable('deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: now, locked_until: null })
    .where('id', 'in', ids)
    .execute();
}

/** Closes as failed every delivery still waiting for any endpoint of a merchant; how many. */
export async function failPendingDeliveriesOfMerchant(trx: Tx, merchantId: string): Promise<number> {
  const closed = await trx
    .updateTable('deliveries')
    .set({ status: 'failed', locked_until: null })
    .where('endpoint_id', 'in', trx.selectFrom('webhook_endpoints').select('id').where('merchant_id', '=', merchantId))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(closed.numUpdatedRows);
}

/** A delivery with its endpoint's URL and state, as the console shows it. */
export interface DeliveryWithEndpoint {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: DeliveriesTable['status'];
  attempts: number;
  next_attempt_at: number;
  created_at: number;
  url: string | null;
  endpoint_status: string | null;
}

/** The deliveries of these events (an endpoint removed since has no URL left), oldest first. */
export async function deliveriesOfEvents(db: Db, eventIds: readonly string[]): Promise<DeliveryWithEndpoint[]> {
  if (eventIds.length === 0) return [];
  return db
    .selectFrom('deliveries as d')
    .leftJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .select([
      'd.id',
      'd.event_id',
      'd.endpoint_id',
      'd.status',
      'd.attempts',
      'd.next_attempt_at',
      'd.created_at',
      'w.url',
      'w.status as endpoint_status',
    ])
    .where('d.event_id', 'in', eventIds)
    .orderBy('d.created_at')
    .orderBy('d.id')
    .execute();
}

/** A delivery as the console lists it: the row and its event's type. */
export type DeliveryListRow = DeliveriesTable & { event_type: EventType };

/**
 * An endpoint's deliveries, newest first (created_at, then id), after `before` when given. No index
 * starts with endpoint_id: this reads the deliveries table (see the console's notes on indexes).
 */
export async function endpointDeliveryPage(
  db: Executor,
  endpointId: string,
  before: { createdAt: number; id: string } | null,
  limit: number,
): Promise<DeliveryListRow[]> {
  let query = db
    .selectFrom('deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .selectAll('d')
    .select('e.type as event_type')
    .where('d.endpoint_id', '=', endpointId);
  if (before !== null) query = query.where(olderThan('d', before));
  return query.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(limit).execute();
}
