// The `api_keys` table. Keys are stored as their SHA-256 hash only.
import type { Db, Executor, Tx } from '../executor.js';
import type { ApiKeysTable, Mode } from '../schema.js';

export async function insertApiKey(db: Executor, row: ApiKeysTable): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/** Keys oldest first, of one merchant or of all. */
export async function apiKeysInOrder(db: Executor, merchantId?: string): Promise<ApiKeysTable[]> {
  let query = db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('id');
  if (merchantId) query = query.where('merchant_id', '=', merchantId);
  return query.execute();
}

export interface ApiKeyListRow {
  id: string;
  merchant_id: string;
  merchant_name: string;
  mode: Mode;
  key_prefix: string;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
}

/**
 * The keys of the merchants in `merchants` (null: every merchant), with their merchant's name: active
 * newest first. The scope is in the query, so a merchant user's list holds only its own merchants' keys.
 * (api_keys has no index on merchant_id: a gateway has few keys, and the whole table is a few pages.)
 */
export async function apiKeysOfMerchants(
  db: Db,
  merchants: readonly string[] | null,
  limit: number,
): Promise<ApiKeyListRow[]> {
  if (merchants !== null && merchants.length === 0) return [];
  let query = db
    .selectFrom('api_keys')
    .innerJoin('merchants', 'merchants.id', 'api_keys.merchant_id')
    .select([
      'api_keys.id',
      'api_keys.merchant_id',
      'merchants.name as merchant_name',
      'api_keys.mode',
      'api_keys.key_prefix',
      'api_keys.created_at',
      'api_keys.revoked_at',
      'api_keys.last_used_at',
    ]);
  if (merchants !== null) query = query.where('api_keys.merchant_id', 'in', merchants);
  const rows = await query.orderBy('api_keys.created_at', 'desc').orderBy('api_keys.id', 'desc').limit(limit).execute();
  return rows.map((r) => ({ ...r, last_used_at: r.last_used_at ?? null }));
}

/** Sets revoked_at on a key not yet revoked (a second revoke keeps the first time). */
export async function markApiKeyRevoked(db: Executor, id: string, now: number): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function apiKeyById(db: Executor, id: string): Promise<ApiKeysTable | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * What authentication needs of the key with this hash, and whether its merchant is disabled: the
 * merchant comes in by its primary key in the same statement, so refusing a disabled merchant's keys
 * costs the API no second query.
 */
export async function apiKeyByHash(db: Executor, keyHash: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('merchants', 'merchants.id', 'api_keys.merchant_id')
    .select([
      'api_keys.id',
      'api_keys.merchant_id',
      'api_keys.mode',
      'api_keys.key_hash',
      'api_keys.revoked_at',
      'merchants.disabled_at as merchant_disabled_at',
      'merchants.live_approved_at as merchant_live_approved_at',
      'merchants.live_rejected_at as merchant_live_rejected_at',
    ])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
}

/** Keys in one IN-list: enough for any real gateway's keys, and far below either database's limits. */
const USED_CHUNK = 500;

/**
 * Records that these keys were used by `at`. A key already marked later (by another instance whose
 * clock runs ahead) keeps its time, so last_used_at never goes back.
 */
export async function markApiKeysUsed(trx: Tx, ids: readonly string[], at: number): Promise<void> {
  for (let i = 0; i < ids.length; i += USED_CHUNK) {
    await trx
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('id', 'in', ids.slice(i, i + USED_CHUNK))
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute();
  }
}

/** One key, if its merchant is in `merchants` (null: any merchant). */
export async function apiKeyInScope(
  db: Db,
  id: string,
  merchants: readonly string[] | null,
): Promise<ApiKeysTable | undefined> {
  if (merchants !== null && merchants.length === 0) return undefined;
  let query = db.selectFrom('api_keys').selectAll().where('id', '=', id);
  if (merchants !== null) query = query.where('merchant_id', 'in', merchants);
  return query.executeTakeFirst();
}

/** Revokes every key of a merchant not yet revoked (its last member deleted the account). */
export async function revokeKeysOfMerchant(trx: Executor, merchantId: string, now: number): Promise<void> {
  await trx
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('merchant_id', '=', merchantId)
    .where('revoked_at', 'is', null)
    .execute();
}
