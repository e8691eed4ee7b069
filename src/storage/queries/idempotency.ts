import type { Executor, Tx } from '../executor.js';
import type { IdempotencyKeysTable } from '../schema.js';

/** The request hash and transaction recorded under a merchant's Idempotency-Key, if any. */
export function readIdempotencyKey(
  db: Executor,
  merchantId: string,
  idemKey: string,
): Promise<{ request_hash: string; transaction_id: string } | undefined> {
  return db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'transaction_id'])
    .where('merchant_id', '=', merchantId)
    .where('idem_key', '=', idemKey)
    .executeTakeFirst();
}

/** Records the key for its transaction unless it is recorded already; false when another request holds it. */
export async function claimIdempotencyKey(trx: Tx, row: IdempotencyKeysTable): Promise<boolean> {
  const claimed = await trx
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returning('transaction_id')
    .executeTakeFirst();
  return claimed !== undefined;
}

/**
 * Records several keys in one statement, in the order given (callers sort them, so racing batches take
 * the key locks in one order); the keys (merchant, key) it recorded. A key another request holds is
 * skipped, and on PostgreSQL waits for that request's transaction to end first.
 */
export async function claimIdempotencyKeys(trx: Tx, rows: IdempotencyKeysTable[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const claimed = await trx
    .insertInto('idempotency_keys')
    .values(rows)
    .onConflict((oc) => oc.doNothing())
    .returning(['merchant_id', 'idem_key'])
    .execute();
  return new Set(claimed.map((r) => `${r.merchant_id}\u0000${r.idem_key}`));
}
