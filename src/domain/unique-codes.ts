import { randomInt } from 'node:crypto';
import { AppError } from './errors.js';

/**
 * The unique-code rules both create paths follow (the one-by-one claim in services/transactions/unique-codes.ts and
 * the batched creates in services/transactions/create-batch.ts), kept here so the two cannot drift apart. A code is
 * added to the amount so that the total is unique among a merchant's open transactions of one mode;
 * the database's primary key on the reserved total is what guarantees it, these rules only choose.
 */

/**
 * Random candidates read per create before its amount's whole range is read. Each is an index probe (in
 * a batch, one per create in one statement), and a create whose candidates are all held falls back to
 * the range read, so 8: at 70% of the range held, 6% fall back.
 */
export const CANDIDATES = 8;

/** Ranges of this many codes or fewer are read whole at once: sampling them would mostly miss. */
const SMALLEST_SAMPLED_RANGE = 64;

/** Whether low..high is wide enough to try random codes first (a narrow range is read whole). */
export const wideEnoughToSample = (low: number, high: number): boolean => high - low + 1 > SMALLEST_SAMPLED_RANGE;

/** `count` distinct random codes in low..high (all of them when the range is smaller), in random order. */
export function sampleCodes(low: number, high: number, count = CANDIDATES): number[] {
  const size = high - low + 1;
  const wanted = Math.max(0, Math.min(count, size));
  const picked = new Set<number>();
  while (picked.size < wanted) picked.add(low + randomInt(size));
  return [...picked];
}

/**
 * Removes and returns a random element of a non-empty list. A random free code rather than the lowest
 * keeps concurrent creates (several instances on PostgreSQL) from all racing for the same row.
 */
export function takeRandom(free: number[]): number {
  return free.splice(randomInt(free.length), 1)[0]!;
}

/** The codes an amount may get: up to the configured maximum and no total above amountMax; null if none. */
export function codeRange(limits: { uniqueCodeMin: number; uniqueCodeMax: number; amountMax: number }, amount: number): { low: number; high: number } | null {
  const high = Math.min(limits.uniqueCodeMax, limits.amountMax - amount);
  return high < limits.uniqueCodeMin ? null : { low: limits.uniqueCodeMin, high };
}

/**
 * When a transaction created now expires, and until when its total stays reserved: past the expiry by
 * the grace, so money that arrives late still finds its transaction.
 */
export function lifetime(
  settings: { transactionTtlSeconds: number; reservationGraceSeconds: number },
  expiresInSeconds: number | null,
  now: number,
): { expiresAt: number; reservedUntil: number } {
  const expiresAt = now + (expiresInSeconds ?? settings.transactionTtlSeconds) * 1000;
  return { expiresAt, reservedUntil: expiresAt + settings.reservationGraceSeconds * 1000 };
}

/** Retry-After is capped here: a client told to wait longer would rather try another amount. */
const MAX_RETRY_AFTER_SECONDS = 3600;

/** Seconds until the soonest of these holds lapses (at least 1, at most an hour; 1 when none is live). */
export function secondsUntilFree(holds: ReadonlyArray<{ reserved_until: number }>, now: number): number {
  const soonest = holds.reduce((min, r) => (r.reserved_until > now ? Math.min(min, r.reserved_until) : min), Number.POSITIVE_INFINITY);
  const seconds = Number.isFinite(soonest) ? Math.max(1, Math.ceil((soonest - now) / 1000)) : 1;
  return Math.min(seconds, MAX_RETRY_AFTER_SECONDS);
}

/** The refusal when every code of an amount is held: Retry-After is when the soonest hold lapses. */
export function exhausted(holds: ReadonlyArray<{ reserved_until: number }>, now: number): AppError {
  return new AppError('unique_code_exhausted', 'every unique code for this amount is held by an open transaction; retry later or use another amount', {
    retryAfter: secondsUntilFree(holds, now),
  });
}
