import type { Executor, Tx } from '../executor.js';
import type { LoginThrottlesTable } from '../schema.js';

export function throttlesByKey(db: Executor, keys: readonly string[]): Promise<LoginThrottlesTable[]> {
  return db.selectFrom('login_throttles').selectAll().where('key', 'in', keys).execute();
}

/**
 * Counts one attempt under the key, unless the key's wait is running, and returns the row as it now is;
 * undefined when the key is waiting (then nothing was counted). One conditional upsert, so a burst of
 * concurrent attempts (on either database, from any number of instances) each get their own count in
 * order, and the caller decides on that count before doing the work it guards. On PostgreSQL the upsert
 * holds the row's lock until the caller's transaction ends, so a wait it sets there is seen by the next.
 */
export function countAttemptUnlessWaiting(
  trx: Tx,
  key: string,
  now: number,
  forgetBefore: number,
): Promise<LoginThrottlesTable | undefined> {
  return trx
    .insertInto('login_throttles')
    .values({ key, failures: 1, last_failure_at: now, blocked_until: 0 })
    .onConflict((oc) =>
      oc
        .column('key')
        .doUpdateSet((eb) => ({
          // Attempts older than the forgetting time no longer count.
          failures: eb
            .case()
            .when('login_throttles.last_failure_at', '<', forgetBefore)
            .then(1)
            .else(eb('login_throttles.failures', '+', 1))
            .end(),
          last_failure_at: now,
        }))
        .where((eb) =>
          eb.or([
            eb('login_throttles.blocked_until', '<=', now),
            eb('login_throttles.last_failure_at', '<', forgetBefore),
          ]),
        ),
    )
    .returningAll()
    .executeTakeFirst();
}

/** Takes back one counted attempt (it turned out to be the right password). */
export function uncountAttempt(trx: Tx, key: string): Promise<unknown> {
  return trx
    .updateTable('login_throttles')
    .set((eb) => ({
      failures: eb
        .case()
        .when('failures', '>', 0)
        .then(eb('failures', '-', 1))
        .else(0)
        .end(),
    }))
    .where('key', '=', key)
    .execute();
}

export function setBlockedUntil(trx: Tx, key: string, until: number): Promise<unknown> {
  return trx.updateTable('login_throttles').set({ blocked_until: until }).where('key', '=', key).execute();
}

/** Forgets the key's count if it is still `count` (nothing was counted since); true when it did. */
export async function clearThrottleAt(trx: Tx, key: string, count: number): Promise<boolean> {
  const result = await trx
    .deleteFrom('login_throttles')
    .where('key', '=', key)
    .where('failures', '=', count)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Forgets counters whose last failure is older than `before` (they no longer count anyway). */
export async function deleteThrottlesBefore(db: Executor, before: number): Promise<number> {
  const result = await db.deleteFrom('login_throttles').where('last_failure_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
