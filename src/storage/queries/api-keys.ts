// The `api_keys` table. Keys are stored as their SHA-256 hash only.
import type { Executor } from '../executor.js';
import type { ApiKeysTable } from '../schema.js';

export async function insertApiKey(db: Executor, row: ApiKeysTable): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** Keys oldest first, of one merchant or of all. */
export async function apiKeysInOrder(db: Executor, merchantId?: string): Promise<ApiKeysTable[]> {
  let query = db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id');
  if (merchantId) query = query.where('merchant_id', '=', merchantId);
  return query.execute();
}

/** Sets revoked_at on a key not yet revoked (a second revoke keeps the first time). */
export async function markApiKeyRevoked(db: Executor, id: string, now: number): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

export async function apiKeyById(db: Executor, id: string): Promise<ApiKeysTable | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** What authentication needs of the key with this hash. */
export async function apiKeyByHash(db: Executor, keyHash: string) {
  return db.selectFrom('api_keys').select(['id', 'merchant_id', 'mode', 'key_hash', 'revoked_at']).where('key_hash', '=', keyHash).executeTakeFirst();
}

/** Revokes every key of a merchant not yet revoked (its last member deleted the account). */
export async function revokeKeysOfMerchant(trx: Executor, merchantId: string, now: number): Promise<void> {
  await trx.updateTable('api_keys').set({ revoked_at: now }).where('merchant_id', '=', merchantId).where('revoked_at', 'is', null).execute();
}
