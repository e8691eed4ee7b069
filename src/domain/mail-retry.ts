// When to try a payer's e-mail again after a failed attempt. Relays greylist for minutes and go down
// for hours; beyond a day a receipt is stale and an invoice long expired, so the row is given up.
const DELAYS_MINUTES = [1, 5, 30, 120, 360, 720];

/** Attempts made before the row is marked failed (the last delay ends about 20 hours after the first). */
export const MAX_EMAIL_ATTEMPTS = DELAYS_MINUTES.length + 1;

/**
 * The time of the next attempt after `attempts` failed ones, or null when no attempt is left. A ±10%
 * jitter keeps a relay outage from bringing every queued mail back in the same second.
 */
export function nextEmailAttemptAt(attempts: number, now: number, random: () => number = Math.random): number | null {
  const minutes = DELAYS_MINUTES[attempts - 1];
  if (minutes === undefined) return null;
  return now + Math.round(minutes * 60_000 * (0.9 + 0.2 * random()));
}
