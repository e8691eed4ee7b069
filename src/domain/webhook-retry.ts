// When a failed webhook delivery is tried again. Pure: the caller passes the time and the randomness.
import { parseRetryAfter as parseRetryAfterWithin } from './retry-after.js';

const SECOND = 1000;
const HOUR = 3600 * SECOND;

export const FIRST_RETRY_MS = 30 * SECOND;
export const MAX_RETRY_DELAY_MS = 6 * HOUR;
/** Retries stop once the nominal schedule reaches this long after the first attempt. */
export const RETRY_WINDOW_MS = 72 * HOUR;
/** A Retry-After longer than this is cut to it, so a receiver cannot park a delivery for weeks. */
export const MAX_RETRY_AFTER_MS = MAX_RETRY_DELAY_MS;
/** After this many failed attempts in a row (across its deliveries) an endpoint is marked failing. */
export const FAILING_AFTER_CONSECUTIVE_FAILURES = 20;

/**
 * The nominal delays between attempts: 30 s doubling to a cap of 6 h, the last one shortened so the
 * final attempt lands at exactly 72 h. Counting by attempts (rather than by the clock) gives a resent
 * delivery a fresh window and makes a day of gateway downtime cost no retries.
 */
export const RETRY_DELAYS_MS: readonly number[] = (() => {
  const delays: number[] = [];
  let total = 0;
  for (let next = FIRST_RETRY_MS; total < RETRY_WINDOW_MS; next = Math.min(next * 2, MAX_RETRY_DELAY_MS)) {
    const delay = Math.min(next, RETRY_WINDOW_MS - total);
    delays.push(delay);
    total += delay;
  }
  return delays;
})();

/** Total attempts a delivery gets before it is marked failed. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * Delay before the next attempt, given how many attempts have now been made, or null when the schedule
 * is spent. Jitter of ±20% keeps many deliveries that failed together (a receiver outage) from
 * returning together. `random` is in [0, 1).
 */
export function retryDelayMs(attemptsMade: number, random: number): number | null {
  const nominal = RETRY_DELAYS_MS[attemptsMade - 1];
  if (nominal === undefined) return null;
  return Math.round(nominal * (0.8 + 0.4 * random));
}

/** A receiver's `Retry-After` as milliseconds from now, at most MAX_RETRY_AFTER_MS; null when absent or malformed. */
export const parseRetryAfter = (header: string | undefined | null, now: number): number | null =>
  parseRetryAfterWithin(header, now, MAX_RETRY_AFTER_MS);

/** When to try next: the backoff, or later if the receiver asked (within bounds). */
export function nextAttemptDelayMs(attemptsMade: number, retryAfterMs: number | null, random: number): number | null {
  const backoff = retryDelayMs(attemptsMade, random);
  if (backoff === null) return null;
  return Math.max(backoff, retryAfterMs ?? 0);
}
