// Merchant webhook endpoints: their rows, their subscriptions and their health.
import { type Kysely, sql } from 'kysely';
import { prepareQuery } from '../engine/prepared.js';
import type { Db, Executor, Tx } from '../executor.js';
import type { DB, WebhookEndpointsTable } from '../schema.js';

// Every event asks for its merchant's endpoints: compiled once per database (prepared.ts).
const subscriptions = prepareQuery((db: Kysely<DB>, p: { merchantId: string }) =>
  db
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .where('merchant_id', '=', p.merchantId)
    .where('status', '!=', 'disabled'),
);

export async function insertWebhookEndpoint(trx: Tx, row: WebhookEndpointsTable): Promise<void> {
  await trx.insertInto('webhook_endpoints').values(row).execute();
}

/** Every endpoint, or a merchant's, oldest first. */
export async function webhookEndpointRows(db: Db, merchantId?: string): Promise<WebhookEndpointsTable[]> {
  let query = db.selectFrom('webhook_endpoints').selectAll().orderBy('created_at').orderBy('id');
  if (merchantId) query = query.where('merchant_id', '=', merchantId);
  return query.execute();
}

export async function webhookEndpointById(db: Executor, id: string): Promise<WebhookEndpointsTable | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The id and subscribed event types (JSON) of a merchant's endpoints that are not disabled. */
export async function enabledEndpointSubscriptions(
  db: Executor,
  merchantId: string,
): Promise<{ id: string; events: string }[]> {
  return subscriptions.execute(db, { merchantId });
}

/** Disables an endpoint; false when it was disabled already (or does not exist). */
export async function disableWebhookEndpoint(trx: Tx, id: string, now: number): Promise<boolean> {
  const updated = await trx
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled', updated_at: now })
    .where('id', '=', id)
    .where('status', '!=', 'disabled')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) !== 0;
}

/** After a successful attempt: no failures in a row, and a failing endpoint is active again. */
export async function markEndpointSucceeded(trx: Tx, id: string, now: number): Promise<void> {
  await trx
    .updateTable('webhook_endpoints')
    .set({
      consecutive_failures: 0,
      status: sql`case when status = 'failing' then 'active' else status end`,
      updated_at: now,
    })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('consecutive_failures', '>', 0), eb('status', '=', 'failing')]))
    .execute();
}

/** After a failed attempt: one more failure in a row; an active endpoint becomes failing at `failingAfter`. */
export async function markEndpointFailed(trx: Tx, id: string, now: number, failingAfter: number): Promise<void> {
  await trx
    .updateTable('webhook_endpoints')
    .set({
      consecutive_failures: sql<number>`consecutive_failures + 1`,
      status: sql`case when status = 'active' and consecutive_failures + 1 >= ${failingAfter} then 'failing' else status end`,
      updated_at: now,
    })
    .where('id', '=', id)
    .execute();
}

/** Endpoints of these merchants (all when null), newest first. */
export async function webhookEndpointsInScope(
  db: Db,
  merchants: readonly string[] | null,
): Promise<WebhookEndpointsTable[]> {
  if (merchants !== null && merchants.length === 0) return [];
  let query = db.selectFrom('webhook_endpoints').selectAll();
  if (merchants !== null) query = query.where('merchant_id', 'in', merchants);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

/** An endpoint by id, only if it is of one of these merchants (any when null). */
export async function webhookEndpointInScope(
  db: Executor,
  id: string,
  merchants: readonly string[] | null,
): Promise<WebhookEndpointsTable | undefined> {
  if (merchants !== null && merchants.length === 0) return undefined;
  let query = db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id);
  if (merchants !== null) query = query.where('merchant_id', 'in', merchants);
  return query.executeTakeFirst();
}

/** Disables every endpoint of a merchant that is not disabled yet; how many it disabled. */
export async function disableEndpointsOfMerchant(trx: Tx, merchantId: string, now: number): Promise<number> {
  const updated = await trx
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled', updated_at: now })
    .where('merchant_id', '=', merchantId)
    .where('status', '!=', 'disabled')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows);
}

/** A webhook endpoint's merchant, URL and health, read after an attempt to see whether it just turned failing. */
export async function endpointHealth(
  db: Executor,
  endpointId: string,
): Promise<{ merchant_id: string; url: string; status: string; consecutive_failures: number } | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .select(['merchant_id', 'url', 'status', 'consecutive_failures'])
    .where('id', '=', endpointId)
    .executeTakeFirst();
}
