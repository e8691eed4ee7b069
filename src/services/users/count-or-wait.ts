// The counters that slow guessing and floods: failed logins (per typed account and per client address)
// and sign-ups and reset requests (per client address). Every attempt is counted, in one conditional
// upsert per key, *before* the password is checked or the work is done, and the decision is made on the
// count that upsert returned: a burst of concurrent attempts gets exactly the allowance and the rest
// wait, on either database and across instances. A login whose password turns out right takes its
// count back, so only failures slow an address down.
import { THROTTLE_FORGET_MS, throttleDelayMs, type ThrottleKey } from '../../domain/console-session.js';
import { countAttemptUnlessWaiting, setBlockedUntil, throttlesByKey } from '../../storage/queries/login-throttles.js';
import type { LoginThrottlesTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

/** Thrown inside the unit to roll back the keys already counted when a later one is waiting. */
class Waiting extends Error {}

/** An attempt as counted: each key with the count it was given. */
export interface Counted {
  keys: readonly ThrottleKey[];
  counts: number[];
}

/**
 * Counts one attempt under every key, all or none. When any key's wait is running nothing is counted and
 * the seconds left are returned. The attempt that crosses a key's free allowance is itself let through
 * and starts that key's wait (as before counting came first: `free` + 1 attempts pass, then each further
 * one waits twice as long as the last).
 */
export async function countOrWait(deps: Deps, keys: readonly ThrottleKey[]): Promise<Counted | number> {
  const now = deps.now();
  // A plain read first: under a flood most attempts meet a running wait, and are refused without a
  // write or a row lock (which would hold database connections that creates need). The upsert below
  // still decides for the rest.
  const early = secondsLeft(
    await throttlesByKey(
      deps.db,
      keys.map((k) => k.key),
    ),
    now,
  );
  if (early > 0) return early;
  try {
    const counts = await deps.db.runInTransaction(async (trx) => {
      const counts: number[] = [];
      for (const { key, rule } of keys) {
        const row = await countAttemptUnlessWaiting(trx, key, now, now - THROTTLE_FORGET_MS);
        if (!row) throw new Waiting();
        counts.push(row.failures);
        const delay = throttleDelayMs(rule, row.failures);
        if (delay > 0) await setBlockedUntil(trx, key, now + delay);
      }
      return counts;
    });
    return { keys, counts };
  } catch (err) {
    if (!(err instanceof Waiting)) throw err;
  }
  return Math.max(
    1,
    secondsLeft(
      await throttlesByKey(
        deps.db,
        keys.map((k) => k.key),
      ),
      now,
    ),
  );
}

/** The seconds until every running wait among these rows has passed; 0 when none is running. */
function secondsLeft(rows: readonly LoginThrottlesTable[], now: number): number {
  const waitMs = Math.max(
    0,
    ...rows.filter((r) => now - r.last_failure_at < THROTTLE_FORGET_MS).map((r) => r.blocked_until - now),
  );
  return Math.ceil(waitMs / 1000);
}
