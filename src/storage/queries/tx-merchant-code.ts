import type { Db } from '../executor.js';

/** The merchant's static QRIS as stored, or undefined when there is no such merchant. */
export async function readMerchantStaticQris(db: Db, merchantId: string): Promise<string | undefined> {
  const row = await db.selectFrom('merchants').select('qris_static').where('id', '=', merchantId).executeTakeFirst();
  return row?.qris_static;
}
