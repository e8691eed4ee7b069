import { randomInt } from 'node:crypto';
import { AppError } from './errors.js';

/**
 * The unique-code rules both create paths follow (the one-by-one claim in services/transactions/unique-codes.ts and
 * the batched creates in services/transactions/create-batch.ts), kept here so the two cannot drift apart. A code is
 * added to the amount (or, for a merchant who chose so, subtracted: a negative code) so that the total is
 * unique among a merchant's open transactions of one mode;
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

/**
 * How a merchant's unique code makes the total: added to the price (the default), or subtracted from it, so
 * the payer never pays more than the price (the merchant takes the code as a discount).
 */
export type UniqueCodeMode = 'add' | 'subtract';
export const UNIQUE_CODE_MODES: readonly UniqueCodeMode[] = ['add', 'subtract'];

/** The smallest largest code: a price of Rp9.900 or less still has 99 codes to tell its payers apart. */
const SMALLEST_LARGEST_CODE = 99;

export interface CodeLimits {
  uniqueCodeMin: number;
  uniqueCodeMax: number;
  amountMin: number;
  amountMax: number;
}

/**
 * The largest code a price may get: 1% of it, at least 99, never above UNIQUE_CODE_MAX. A code is a
 * surcharge (or a discount) the payer and the soundbox see, so a small sale gets a small one: Rp7.500 at
 * most Rp99, Rp50.000 at most Rp500, Rp100.000 and up at most UNIQUE_CODE_MAX (999 by default). Never
 * below UNIQUE_CODE_MIN, so an operator's larger smallest code still leaves that one code.
 */
export function largestCode(limits: Pick<CodeLimits, 'uniqueCodeMin' | 'uniqueCodeMax'>, price: number): number {
  const scaled = Math.max(SMALLEST_LARGEST_CODE, Math.floor(price / 100));
  return Math.min(limits.uniqueCodeMax, Math.max(limits.uniqueCodeMin, scaled));
}

/**
 * The codes a price may get, as signed offsets from the price (total = price + offset), so both create
 * paths read and reserve low..high the same way whatever the mode: 1..high when added, -high..-1 when
 * subtracted (with UNIQUE_CODE_MIN for 1). Added, no total goes above AMOUNT_MAX; subtracted, no total goes
 * below AMOUNT_MIN (nor to 0). Null when no code fits: the price is refused with amount_out_of_range (when
 * subtracted, a price below AMOUNT_MIN + UNIQUE_CODE_MIN, at least Rp1 + UNIQUE_CODE_MIN, has no room for
 * a discount, and the payer must never pay more than the price, so it is not added instead).
 */
export function codeRange(
  limits: CodeLimits,
  price: number,
  mode: UniqueCodeMode = 'add',
): { low: number; high: number } | null {
  const largest = largestCode(limits, price);
  if (mode === 'add') {
    const high = Math.min(largest, limits.amountMax - price);
    return high < limits.uniqueCodeMin ? null : { low: limits.uniqueCodeMin, high };
  }
  const high = Math.min(largest, price - Math.max(1, limits.amountMin));
  // 0 - x, not -x: a code of 0 (UNIQUE_CODE_MIN=0) stays 0, never -0.
  return high < limits.uniqueCodeMin ? null : { low: 0 - high, high: 0 - limits.uniqueCodeMin };
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
  const soonest = holds.reduce(
    (min, r) => (r.reserved_until > now ? Math.min(min, r.reserved_until) : min),
    Number.POSITIVE_INFINITY,
  );
  const seconds = Number.isFinite(soonest) ? Math.max(1, Math.ceil((soonest - now) / 1000)) : 1;
  return Math.min(seconds, MAX_RETRY_AFTER_SECONDS);
}

/** The refusal when every code of an amount is held: Retry-After is when the soonest hold lapses. */
export function exhausted(holds: ReadonlyArray<{ reserved_until: number }>, now: number): AppError {
  return new AppError(
    'unique_code_exhausted',
    'every unique code for this amount is held by an open transaction; retry later or use another amount',
    {
      retryAfter: secondsUntilFree(holds, now),
    },
  );
}
