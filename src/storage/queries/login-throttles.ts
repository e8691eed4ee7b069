import type { Executor, Tx } from '../executor.js';
import type { LoginThrottlesTable } from '../schema.js';

export function throttlesByKey(db: Executor, keys: readonly string[]): Promise<LoginThrottlesTable[]> {
  return db.selectFrom('login_throttles').selectAll().where('key', 'in', keys).execute();
}

/**
 * Counts one failure under the key and returns the row as it now is. One statement, so concurrent
 * failures (a guessing script) each count, on either database.
 */
export function countLoginFailure(trx: Tx, key: string, now: number, forgetBefore: number): Promise<LoginThrottlesTable> {
  return trx
    .insertInto('login_throttles')
    .values({ key, failures: 1, last_failure_at: now, blocked_until: 0 })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet((eb) => ({
        // Failures older than the forgetting time no longer count.
        failures: eb.case().when('login_throttles.last_failure_at', '<', forgetBefore).then(1).else(eb('login_throttles.failures', '+', 1)).end(),
        last_failure_at: now,
      })),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function setBlockedUntil(trx: Tx, key: string, until: number): Promise<unknown> {
  return trx.updateTable('login_throttles').set({ blocked_until: until }).where('key', '=', key).execute();
}

export function clearThrottle(db: Executor, key: string): Promise<unknown> {
  return db.deleteFrom('login_throttles').where('key', '=', key).execute();
}

/** Forgets counters whose last failure is older than `before` (they no longer count anyway). */
export async function deleteThrottlesBefore(db: Executor, before: number): Promise<number> {
  const result = await db.deleteFrom('login_throttles').where('last_failure_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
