// When a failed alert is tried again. Shorter than a webhook's 72 hours: an alert is about something
// happening now, and one that arrives a day late tells the cashier nothing. Pure: the caller passes the
// time and the randomness.

/** The nominal waits after the 1st, 2nd, ... failed attempt; an alert gets one more attempt than there are waits. */
export const NOTIFY_RETRY_DELAYS_MS: readonly number[] = [
  15_000,
  60_000,
  5 * 60_000,
  15 * 60_000,
  60 * 60_000,
  3 * 3600_000,
  6 * 3600_000,
];

export const NOTIFY_MAX_ATTEMPTS = NOTIFY_RETRY_DELAYS_MS.length + 1;

/** The longest a service's "retry after" may hold an alert back. */
export const NOTIFY_MAX_RETRY_AFTER_MS = 6 * 3600_000;

/**
 * The wait before the next attempt, given how many attempts have now been made, or null when none is
 * left. ±20% jitter (`random` in [0, 1)) spreads alerts that failed together. A service's own wait
 * (Telegram's `retry_after` on a 429, an HTTP Retry-After) is honoured when longer, up to
 * NOTIFY_MAX_RETRY_AFTER_MS.
 */
export function notifyRetryDelayMs(attemptsMade: number, retryAfterMs: number | null, random: number): number | null {
  const nominal = NOTIFY_RETRY_DELAYS_MS[attemptsMade - 1];
  if (nominal === undefined) return null;
  const backoff = Math.round(nominal * (0.8 + 0.4 * random));
  return retryAfterMs === null ? backoff : Math.max(backoff, Math.min(retryAfterMs, NOTIFY_MAX_RETRY_AFTER_MS));
}
