import type { Executor, Tx } from '../executor.js';

/**
 * Counts one create of a merchant on a WIB day, if that keeps it within `quota`: one statement, so
 * concurrent creates (on any instance) can never both take the last one. Returns the day's new count,
 * or null when the quota was already used up. Run inside the create's own transaction: a create that
 * rolls back takes its count with it, so each created transaction is counted exactly once.
 */
export async function countDailyCreate(
  trx: Tx,
  merchantId: string,
  day: number,
  quota: number,
): Promise<number | null> {
  if (quota <= 0) return null;
  const row = await trx
    .insertInto('daily_creates')
    .values({ merchant_id: merchantId, day, count: 1 })
    .onConflict((oc) =>
      oc
        .columns(['merchant_id', 'day'])
        .doUpdateSet((eb) => ({ count: eb('daily_creates.count', '+', 1) }))
        .where('daily_creates.count', '<', quota),
    )
    .returning('count')
    .executeTakeFirst();
  return row ? Number(row.count) : null;
}

/**
 * The same as countDailyCreate for a transaction made by one of the merchant's payment links, against
 * the links' own daily cap (link_daily_creates), which the merchant's API quota never shares.
 */
export async function countLinkCreate(trx: Tx, merchantId: string, day: number, cap: number): Promise<number | null> {
  if (cap <= 0) return null;
  const row = await trx
    .insertInto('link_daily_creates')
    .values({ merchant_id: merchantId, day, count: 1 })
    .onConflict((oc) =>
      oc
        .columns(['merchant_id', 'day'])
        .doUpdateSet((eb) => ({ count: eb('link_daily_creates.count', '+', 1) }))
        .where('link_daily_creates.count', '<', cap),
    )
    .returning('count')
    .executeTakeFirst();
  return row ? Number(row.count) : null;
}

/** How many transactions the merchant's payment links made on that day. */
export async function linkCreates(db: Executor, merchantId: string, day: number): Promise<number> {
  const row = await db
    .selectFrom('link_daily_creates')
    .select('count')
    .where('merchant_id', '=', merchantId)
    .where('day', '=', day)
    .executeTakeFirst();
  return row ? Number(row.count) : 0;
}

/** How many transactions the merchant created on that day. */
export async function dailyCreates(db: Executor, merchantId: string, day: number): Promise<number> {
  const row = await db
    .selectFrom('daily_creates')
    .select('count')
    .where('merchant_id', '=', merchantId)
    .where('day', '=', day)
    .executeTakeFirst();
  return row ? Number(row.count) : 0;
}

export async function merchantQuota(db: Executor, merchantId: string): Promise<number | null | undefined> {
  const row = await db
    .selectFrom('merchants')
    .select('daily_create_quota')
    .where('id', '=', merchantId)
    .executeTakeFirst();
  return row === undefined ? undefined : (row.daily_create_quota ?? null);
}

export async function setMerchantQuota(trx: Tx, merchantId: string, quota: number | null): Promise<boolean> {
  const result = await trx
    .updateTable('merchants')
    .set({ daily_create_quota: quota })
    .where('id', '=', merchantId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Forgets days long past. */
export async function deleteDailyCreatesBefore(db: Executor, day: number): Promise<number> {
  const result = await db.deleteFrom('daily_creates').where('day', '<', day).executeTakeFirst();
  return Number(result.numDeletedRows);
}
