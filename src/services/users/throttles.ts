// The counters that slow guessing and floods: failed logins (per typed account and per client address)
// and sign-ups and reset requests (per client address). Every attempt is counted, in one conditional
// upsert per key, *before* the password is checked or the work is done, and the decision is made on the
// count that upsert returned: a burst of concurrent attempts gets exactly the allowance and the rest
// wait, on either database and across instances. A login whose password turns out right takes its
// count back, so only failures slow an address down.
import { hash } from 'node:crypto';
import { clientAddressKey } from '../../domain/client-address.js';
import { ACCOUNT_THROTTLE, ADDRESS_THROTTLE, THROTTLE_FORGET_MS, throttleDelayMs, type ThrottleRule } from '../../domain/console-session.js';
import { AppError } from '../../domain/errors.js';
import { clearThrottleAt, countAttemptUnlessWaiting, setBlockedUntil, throttlesByKey, uncountAttempt } from '../../storage/queries/login-throttles.js';
import type { LoginThrottlesTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

export interface ThrottleKey {
  key: string;
  rule: ThrottleRule;
}

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
async function countOrWait(deps: Deps, keys: readonly ThrottleKey[]): Promise<Counted | number> {
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
  const waitMs = Math.max(0, ...rows.filter((r) => now - r.last_failure_at < THROTTLE_FORGET_MS).map((r) => r.blocked_until - now));
  return Math.ceil(waitMs / 1000);
}

/** The login counters of one attempt: the typed account (hashed, so unknown addresses count too) and the client's address. */
export function loginKeys(email: string, clientAddress: string): ThrottleKey[] {
  return [
    { key: `account:${hash('sha256', email, 'hex')}`, rule: ACCOUNT_THROTTLE },
    { key: `address:${clientAddressKey(clientAddress)}`, rule: ADDRESS_THROTTLE },
  ];
}

/** Counts a password check before it is made; `login_throttled` (429) when the account or the address is waiting. */
export async function countLoginAttempt(deps: Deps, keys: readonly ThrottleKey[]): Promise<Counted> {
  const counted = await countOrWait(deps, keys);
  if (typeof counted === 'number') throw new AppError('login_throttled', `too many failed logins; try again in ${counted} s`, { retryAfter: counted });
  return counted;
}

/**
 * The password was right (or was never checked): the attempt no longer counts. `clearAccount` (a
 * completed login) also forgives the account's earlier failures, unless other attempts were counted
 * since this one (a burst under way: they were let through on their counts, so clearing could let more
 * of them through). The address keeps its failures, or one person with an account could reset the
 * counter that slows a guesser on the same address.
 */
export async function forgiveLoginAttempt(deps: Deps, counted: Counted, clearAccount: boolean): Promise<void> {
  const [account, address] = counted.keys;
  await deps.db.runInTransaction(async (trx) => {
    if (!(clearAccount && (await clearThrottleAt(trx, account!.key, counted.counts[0]!)))) await uncountAttempt(trx, account!.key);
    await uncountAttempt(trx, address!.key);
  });
}

/**
 * Counts one request (a sign-up, a reset request) under `key` before it is acted on; past `free` of them
 * each further one waits twice as long as the last (from a minute up to a day): `rate_limited` (429).
 */
export async function countRequest(deps: Deps, key: string, free: number): Promise<void> {
  const rule: ThrottleRule = { free, firstDelayMs: 60_000, maxDelayMs: 24 * 3600_000 };
  const seconds = await countOrWait(deps, [{ key, rule }]);
  if (typeof seconds === 'number')
    throw new AppError('rate_limited', `too many requests from this address; try again in ${seconds} s`, { retryAfter: seconds });
}
