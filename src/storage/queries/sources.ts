// The `payment_sources` table: sources as stored, feeds' poll schedule and state, enabled SNAP sources.
import type { Kysely } from 'kysely';
import { batchedLookup } from '../engine/batched-lookup.js';
import { padToPowerOfTwo, prepareRowsQuery } from '../engine/prepared-rows.js';
import type { Executor, Tx } from '../executor.js';
import type { DB, PaymentSourcesTable, SourceType } from '../schema.js';

// Every inbound post finds its source by id: the posts of one turn (a payment storm) share one IN-list
// statement (batched-lookup.ts), padded to a power of two so its texts are few.
const sourcesIn = prepareRowsQuery((db: Kysely<DB>, ids: readonly { id: string }[], _p: Record<string, never>) =>
  db
    .selectFrom('payment_sources')
    .selectAll()
    .where(
      'id',
      'in',
      ids.map((r) => r.id),
    ),
);
const sourceById = batchedLookup(async (db: Kysely<DB>, ids: string[]) => {
  const list = padToPowerOfTwo(ids).map((id) => ({ id }));
  return new Map((await sourcesIn.execute(db, list, {})).map((row) => [row.id, row]));
});

/** Stores a new, enabled source; a polled one is due at `now`. */
export async function insertPaymentSource(
  db: Executor,
  input: {
    id: string;
    merchantId: string;
    type: SourceType;
    config: string;
    now: number;
    polled: boolean;
    name: string | null;
  },
): Promise<void> {
  await db
    .insertInto('payment_sources')
    .values({
      id: input.id,
      merchant_id: input.merchantId,
      type: input.type,
      config: input.config,
      state: null,
      enabled: 1,
      name: input.name,
      created_at: input.now,
      updated_at: input.now,
      ...(input.polled ? { next_poll_at: input.now } : {}),
    })
    .execute();
}

/** A source by id, through the batched read (reads of one turn share a statement; in a unit of work, at once). */
export function loadPaymentSourceById(db: Executor, id: string): Promise<PaymentSourcesTable | undefined> {
  return sourceById.load(db, id);
}

/** Sources oldest first, of one merchant or of all. */
export async function paymentSourcesInOrder(db: Executor, merchantId?: string): Promise<PaymentSourcesTable[]> {
  let query = db.selectFrom('payment_sources').selectAll();
  if (merchantId) query = query.where('merchant_id', '=', merchantId);
  return query.orderBy('created_at').orderBy('id').execute();
}

/** Sources of these merchants (all when null), oldest first. */
export async function paymentSourcesInScope(
  db: Executor,
  merchants: readonly string[] | null,
): Promise<PaymentSourcesTable[]> {
  if (merchants !== null && merchants.length === 0) return [];
  let query = db.selectFrom('payment_sources').selectAll();
  if (merchants !== null) query = query.where('merchant_id', 'in', merchants);
  return query.orderBy('created_at').orderBy('id').execute();
}

/** A source by id, only if it is of one of these merchants (any when null). */
export async function paymentSourceInScope(
  db: Executor,
  id: string,
  merchants: readonly string[] | null,
): Promise<PaymentSourcesTable | undefined> {
  if (merchants !== null && merchants.length === 0) return undefined;
  let query = db.selectFrom('payment_sources').selectAll().where('id', '=', id);
  if (merchants !== null) query = query.where('merchant_id', 'in', merchants);
  return query.executeTakeFirst();
}

/** Turns a source on or off at `now`; `pollNow` also makes it due at once. The updated row. */
export async function updatePaymentSourceEnabled(
  trx: Tx,
  id: string,
  change: { enabled: boolean; now: number; pollNow: boolean },
): Promise<PaymentSourcesTable> {
  return trx
    .updateTable('payment_sources')
    .set({
      enabled: change.enabled ? 1 : 0,
      updated_at: change.now,
      ...(change.pollNow ? { next_poll_at: change.now } : {}),
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

// Feeds.

/** Enabled feeds due at `now` (or never polled), soonest first. */
export async function dueFeedSources(db: Executor, now: number, limit: number): Promise<PaymentSourcesTable[]> {
  return db
    .selectFrom('payment_sources')
    .selectAll()
    .where('type', '=', 'feed')
    .where('enabled', '=', 1)
    .where((eb) => eb.or([eb('next_poll_at', 'is', null), eb('next_poll_at', '<=', now)]))
    .orderBy('next_poll_at')
    .limit(limit)
    .execute();
}

/** Moves an enabled, due feed's next_poll_at to `lease`; true when this caller won the claim. */
export async function leaseFeedPoll(db: Executor, id: string, now: number, lease: number): Promise<boolean> {
  const claimed = await db
    .updateTable('payment_sources')
    .set({ next_poll_at: lease })
    .where('id', '=', id)
    .where('enabled', '=', 1)
    .where((eb) => eb.or([eb('next_poll_at', 'is', null), eb('next_poll_at', '<=', now)]))
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

/** Stores a poll's state and schedule, only while the feed still holds this poll's `lease`. */
export async function saveFeedPoll(
  db: Executor,
  id: string,
  lease: number,
  result: { state: string; nextPollAt: number; now: number },
): Promise<void> {
  await db
    .updateTable('payment_sources')
    .set({ state: result.state, next_poll_at: result.nextPollAt, updated_at: result.now })
    .where('id', '=', id)
    .where('next_poll_at', '=', lease)
    .execute();
}

// SNAP sources.

export type SnapSourceRow = Pick<PaymentSourcesTable, 'id' | 'merchant_id' | 'config' | 'updated_at'>;

function enabledSnap(db: Executor) {
  return db
    .selectFrom('payment_sources')
    .select(['id', 'merchant_id', 'config', 'updated_at'])
    .where('type', '=', 'snap')
    .where('enabled', '=', 1);
}

/** A merchant's enabled SNAP sources, newest first. */
export async function enabledSnapSourcesOfMerchant(db: Executor, merchantId: string): Promise<SnapSourceRow[]> {
  return enabledSnap(db).where('merchant_id', '=', merchantId).orderBy('created_at', 'desc').execute();
}

export async function enabledSnapSourceById(db: Executor, id: string): Promise<SnapSourceRow | undefined> {
  return enabledSnap(db).where('id', '=', id).executeTakeFirst();
}

/** Every enabled SNAP source, oldest first. */
export async function allEnabledSnapSources(db: Executor): Promise<SnapSourceRow[]> {
  return enabledSnap(db).orderBy('created_at').execute();
}

/** Turns off every enabled payment source of a merchant; how many it turned off. */
export async function disableSourcesOfMerchant(trx: Tx, merchantId: string, now: number): Promise<number> {
  const updated = await trx
    .updateTable('payment_sources')
    .set({ enabled: 0, updated_at: now })
    .where('merchant_id', '=', merchantId)
    .where('enabled', '=', 1)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows);
}

/** Replaces a source's stored configuration (a rotated secret); the updated row. */
export async function setPaymentSourceConfig(
  trx: Tx,
  id: string,
  config: string,
  now: number,
): Promise<PaymentSourcesTable | undefined> {
  return trx
    .updateTable('payment_sources')
    .set({ config, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** The names of these sources that have one, by id. */
export async function paymentSourceNames(
  db: Executor,
  ids: readonly string[],
): Promise<Array<{ id: string; name: string }>> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('payment_sources')
    .select(['id', 'name'])
    .where('id', 'in', [...ids])
    .where('name', 'is not', null)
    .execute();
  return rows.map((r) => ({ id: r.id, name: r.name ?? r.id }));
}
