// The `merchants` table.
import type { Db, Executor } from '../executor.js';
import type { MerchantsTable } from '../schema.js';

export async function insertMerchant(db: Executor, row: MerchantsTable): Promise<void> {
  await db.insertInto('merchants').values(row).execute();
}

/** Every merchant, oldest first. */
export async function allMerchants(db: Executor): Promise<MerchantsTable[]> {
  return db.selectFrom('merchants').selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function merchantById(db: Executor, id: string): Promise<MerchantsTable | undefined> {
  return db.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Whether a merchant with this id exists (reads only its id). */
export async function merchantExists(db: Executor, id: string): Promise<boolean> {
  const found = await db.selectFrom('merchants').select('id').where('id', '=', id).executeTakeFirst();
  return found !== undefined;
}

/** Whether there is any merchant at all. */
export async function anyMerchantExists(db: Executor): Promise<boolean> {
  const any = await db.selectFrom('merchants').select('id').limit(1).executeTakeFirst();
  return any !== undefined;
}

/** The merchant's static QRIS as stored, or undefined when there is no such merchant. */
export async function readMerchantStaticQris(db: Db, merchantId: string): Promise<string | undefined> {
  const row = await db.selectFrom('merchants').select('qris_static').where('id', '=', merchantId).executeTakeFirst();
  return row?.qris_static;
}

/** Disables a merchant that is still enabled (a second disable keeps the first time). */
export async function markMerchantDisabled(db: Executor, id: string, now: number): Promise<void> {
  await db.updateTable('merchants').set({ disabled_at: now }).where('id', '=', id).where('disabled_at', 'is', null).execute();
}

/** Merchants whose live keys wait for an operator's approval, oldest first. */
export async function merchantsAwaitingLive(db: Executor): Promise<MerchantsTable[]> {
  return db.selectFrom('merchants').selectAll().where('live_approved_at', 'is', null).where('disabled_at', 'is', null).orderBy('created_at').orderBy('id').limit(100).execute();
}

/** Approves a merchant's live keys; false when it was approved already (or does not exist). */
export async function markLiveApproved(db: Executor, id: string, now: number): Promise<boolean> {
  const result = await db.updateTable('merchants').set({ live_approved_at: now }).where('id', '=', id).where('live_approved_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Ids and names of these merchants (all when null), by name: what a console form's merchant select offers. */
export async function merchantNamesInScope(db: Db, merchants: readonly string[] | null): Promise<{ id: string; name: string }[]> {
  if (merchants !== null && merchants.length === 0) return [];
  let query = db.selectFrom('merchants').select(['id', 'name']);
  if (merchants !== null) query = query.where('id', 'in', merchants);
  return query.orderBy('name').orderBy('id').execute();
}
