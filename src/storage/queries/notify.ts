// Merchants' alert channels, their alerts (an outbox of their own, beside webhook deliveries) and each
// alert's attempts.
import type { Db, Executor, Tx } from '../executor.js';
import type { NotifyAttemptsTable, NotifyChannelsTable, NotifyDeliveriesTable } from '../schema.js';

export async function insertNotifyChannel(trx: Tx, row: NotifyChannelsTable): Promise<void> {
  await trx.insertInto('notify_channels').values(row).execute();
}

/** Channels of these merchants (all when null) that are not removed, newest first. */
export async function notifyChannelsInScope(db: Db, merchants: readonly string[] | null): Promise<NotifyChannelsTable[]> {
  if (merchants !== null && merchants.length === 0) return [];
  let query = db.selectFrom('notify_channels').selectAll().where('status', '=', 'active');
  if (merchants !== null) query = query.where('merchant_id', 'in', merchants);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

/** A channel by id, only if it is of one of these merchants (any when null); removed ones included. */
export async function notifyChannelInScope(db: Executor, id: string, merchants: readonly string[] | null): Promise<NotifyChannelsTable | undefined> {
  if (merchants !== null && merchants.length === 0) return undefined;
  let query = db.selectFrom('notify_channels').selectAll().where('id', '=', id);
  if (merchants !== null) query = query.where('merchant_id', 'in', merchants);
  return query.executeTakeFirst();
}

/** A merchant's active channels: where an alert about it goes. */
export async function activeNotifyChannelIds(db: Executor, merchantId: string): Promise<string[]> {
  const rows = await db.selectFrom('notify_channels').select('id').where('merchant_id', '=', merchantId).where('status', '=', 'active').execute();
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

/** Closes a channel's waiting alerts as failed; how many. */
export async function failPendingNotifyDeliveriesOf(trx: Tx, channelId: string): Promise<number> {
  const closed = await trx
    .updateTable('notify_deliveries')
    .set({ status: 'failed', locked_until: null })
    .where('channel_id', '=', channelId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(closed.numUpdatedRows);
}

export async function insertNotifyDeliveries(db: Executor, rows: NotifyDeliveriesTable[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('notify_deliveries').values(rows).execute();
}

/** A merchant's display name, for the text of its alerts. */
export async function merchantNameOf(db: Executor, merchantId: string): Promise<string | undefined> {
  const row = await db.selectFrom('merchants').select('name').where('id', '=', merchantId).executeTakeFirst();
  return row?.name;
}

/** A due alert with what sending it needs. */
export interface DueNotifyDelivery {
  id: string;
  channel_id: string;
  merchant_id: string;
  kind: NotifyDeliveriesTable['kind'];
  facts: string;
  attempts: number;
  type: NotifyChannelsTable['type'];
  language: NotifyChannelsTable['language'];
  secret: string | null;
  chat_id: string | null;
}

function dueQuery(db: Executor, now: number, limit: number) {
  return (
    db
      .selectFrom('notify_deliveries as d')
      .innerJoin('notify_channels as c', 'c.id', 'd.channel_id')
      // A disabled merchant's alerts wait, as its webhooks do.
      .innerJoin('merchants as m', 'm.id', 'd.merchant_id')
      .select(['d.id', 'd.channel_id', 'd.merchant_id', 'd.kind', 'd.facts', 'd.attempts', 'c.type', 'c.language', 'c.secret', 'c.chat_id'])
      .where('d.status', '=', 'pending')
      .where('d.next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('d.locked_until', 'is', null), eb('d.locked_until', '<=', now)]))
      .where('c.status', '=', 'active')
      .where('m.disabled_at', 'is', null)
      .orderBy('d.next_attempt_at')
      .orderBy('d.created_at')
      .limit(limit)
  );
}

/** Up to `limit` alerts due at `now`, unclaimed, to active channels of enabled merchants. */
export async function dueNotifyDeliveries(db: Executor, now: number, limit: number): Promise<DueNotifyDelivery[]> {
  return dueQuery(db, now, limit).execute();
}

/** One alert by id, if it is due at `now` and unclaimed (as dueNotifyDeliveries would return it). */
export async function dueNotifyDeliveryById(db: Executor, id: string, now: number): Promise<DueNotifyDelivery | undefined> {
  return dueQuery(db, now, 1).where('d.id', '=', id).executeTakeFirst();
}

/** PostgreSQL only: dueNotifyDeliveries, skipping rows another dispatcher has locked. */
export async function dueNotifyDeliveriesSkipLocked(trx: Tx, now: number, limit: number): Promise<DueNotifyDelivery[]> {
  return dueQuery(trx, now, limit).forUpdate('d').skipLocked().execute();
}

export async function insertNotifyAttempt(trx: Tx, attempt: NotifyAttemptsTable): Promise<void> {
  await trx.insertInto('notify_attempts').values(attempt).execute();
}

/** A channel's alerts, newest first (created_at, then id), after `before` when given. */
export async function notifyDeliveryPage(
  db: Executor,
  channelId: string,
  before: { createdAt: number; id: string } | null,
  limit: number,
): Promise<NotifyDeliveriesTable[]> {
  let query = db.selectFrom('notify_deliveries as d').selectAll('d').where('d.channel_id', '=', channelId);
  if (before !== null) {
    query = query.where((eb) =>
      eb.or([eb('d.created_at', '<', before.createdAt), eb.and([eb('d.created_at', '=', before.createdAt), eb('d.id', '<', before.id)])]),
    );
  }
  return query.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(limit).execute();
}

/** Every attempt of these alerts, oldest first. */
export async function attemptsOfNotifyDeliveries(db: Executor, deliveryIds: readonly string[]): Promise<NotifyAttemptsTable[]> {
  if (deliveryIds.length === 0) return [];
  return db.selectFrom('notify_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('attempted_at').orderBy('id').execute();
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

/** A webhook endpoint's merchant, URL and health, read after an attempt to see whether it just turned failing. */
export async function endpointHealth(
  db: Executor,
  endpointId: string,
): Promise<{ merchant_id: string; url: string; status: string; consecutive_failures: number } | undefined> {
  return db.selectFrom('webhook_endpoints').select(['merchant_id', 'url', 'status', 'consecutive_failures']).where('id', '=', endpointId).executeTakeFirst();
}
