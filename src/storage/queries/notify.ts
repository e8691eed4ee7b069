// Merchants' alert channels and their alerts (jobs of the outbox, outbox-jobs.ts, in a table of their own).
import type { Kysely } from 'kysely';
import { prepareQuery } from '../engine/prepared.js';
import { prepareRowsQuery } from '../engine/prepared-rows.js';
import type { Db, Executor, Tx } from '../executor.js';
import type { DB, NotifyChannelsTable, NotifyDeliveriesTable } from '../schema.js';

// Every payment asks for its merchant's channels: compiled once per database (prepared.ts).
const activeChannels = prepareQuery((db: Kysely<DB>, p: { merchantId: string }) =>
  db.selectFrom('notify_channels').select('id').where('merchant_id', '=', p.merchantId).where('status', '=', 'active'),
);
const alertsInsert = prepareRowsQuery(
  (db: Kysely<DB>, rows: readonly NotifyDeliveriesTable[], _p: Record<string, never>) =>
    db.insertInto('notify_deliveries').values([...rows]),
);
import { type DueJobs, dueAt, olderThan } from './outbox-jobs.js';

export async function insertNotifyChannel(trx: Tx, row: NotifyChannelsTable): Promise<void> {
  await trx.insertInto('notify_channels').values(row).execute();
}

/** Channels of these merchants (all when null) that are not removed, newest first. */
export async function notifyChannelsInScope(
  db: Db,
  merchants: readonly string[] | null,
): Promise<NotifyChannelsTable[]> {
  if (merchants !== null && merchants.length === 0) return [];
  let query = db.selectFrom('notify_channels').selectAll().where('status', '=', 'active');
  if (merchants !== null) query = query.where('merchant_id', 'in', merchants);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

/** A channel by id, only if it is of one of these merchants (any when null); removed ones included. */
export async function notifyChannelInScope(
  db: Executor,
  id: string,
  merchants: readonly string[] | null,
): Promise<NotifyChannelsTable | undefined> {
  if (merchants !== null && merchants.length === 0) return undefined;
  let query = db.selectFrom('notify_channels').selectAll().where('id', '=', id);
  if (merchants !== null) query = query.where('merchant_id', 'in', merchants);
  return query.executeTakeFirst();
}

/** A merchant's active channels: where an alert about it goes. */
export async function activeNotifyChannelIds(db: Executor, merchantId: string): Promise<string[]> {
  const rows = await activeChannels.execute(db, { merchantId });
  return rows.map((r) => r.id);
}

/** Removes a channel (its row and history stay); false when it was removed already. */
export async function disableNotifyChannel(trx: Tx, id: string, now: number): Promise<boolean> {
  const updated = await trx
    .updateTable('notify_channels')
    .set({ status: 'disabled', updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) !== 0;
}

export async function insertNotifyDeliveries(db: Executor, rows: readonly NotifyDeliveriesTable[]): Promise<void> {
  if (rows.length > 0) await alertsInsert.execute(db, rows, {});
}

/** A merchant's display name, for the text of its alerts. */
export async function merchantNameOf(db: Executor, merchantId: string): Promise<string | undefined> {
  const row = await db.selectFrom('merchants').select('name').where('id', '=', merchantId).executeTakeFirst();
  return row?.name;
}

/** A due alert with what sending it needs. */
export interface DueNotifyDelivery {
  id: string;
  channelId: string;
  merchantId: string;
  kind: NotifyDeliveriesTable['kind'];
  /** The stored facts (JSON). */
  facts: string;
  type: NotifyChannelsTable['type'];
  language: NotifyChannelsTable['language'];
  secret: string | null;
  chatId: string | null;
  /** Attempts made before this one. */
  attempts: number;
}

/**
 * Up to `limit` alerts due at `now`, unclaimed, to active channels of enabled merchants (or the one of
 * id `only`, if it is due); with `skipLocked` (PostgreSQL, in a unit of work), locking them and skipping
 * rows another dispatcher has locked.
 */
export async function dueNotifyDeliveries(db: Executor, due: DueJobs): Promise<DueNotifyDelivery[]> {
  let query = db
    .selectFrom('notify_deliveries as d')
    .innerJoin('notify_channels as c', 'c.id', 'd.channel_id')
    // A disabled merchant's alerts wait, as its webhooks do.
    .innerJoin('merchants as m', 'm.id', 'd.merchant_id')
    .select([
      'd.id',
      'd.channel_id as channelId',
      'd.merchant_id as merchantId',
      'd.kind',
      'd.facts',
      'c.type',
      'c.language',
      'c.secret',
      'c.chat_id as chatId',
      'd.attempts',
    ])
    .where(dueAt('d', due.now))
    .where('c.status', '=', 'active')
    .where('m.disabled_at', 'is', null)
    .orderBy('d.next_attempt_at')
    .orderBy('d.created_at')
    .limit(due.limit);
  if (due.only !== undefined) query = query.where('d.id', '=', due.only);
  return (due.skipLocked ? query.forUpdate('d').skipLocked() : query).execute();
}

/** A channel's alerts, newest first (created_at, then id), after `before` when given. */
export async function notifyDeliveryPage(
  db: Executor,
  channelId: string,
  before: { createdAt: number; id: string } | null,
  limit: number,
): Promise<NotifyDeliveriesTable[]> {
  let query = db.selectFrom('notify_deliveries as d').selectAll('d').where('d.channel_id', '=', channelId);
  if (before !== null) query = query.where(olderThan('d', before));
  return query.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(limit).execute();
}

/** The addresses of a merchant's own users (not operators, not disabled or deleted): where its e-mail alerts go. */
export async function merchantOwnerEmails(db: Executor, merchantId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('user_merchants')
    .innerJoin('users', 'users.id', 'user_merchants.user_id')
    .select('users.email')
    .where('user_merchants.merchant_id', '=', merchantId)
    .where('users.role', '=', 'merchant')
    .where('users.disabled_at', 'is', null)
    .where('users.deleted_at', 'is', null)
    .orderBy('users.email')
    .execute();
  return rows.map((r) => r.email);
}
