import { exhausted, sampleCodes, takeRandom, wideEnoughToSample } from '../../domain/unique-codes.js';
import type { Tx } from '../../storage/executor.js';
import {
  readReservationsAt,
  readReservationsBetween,
  reclaimLapsedTotal,
  reserveTotalIfFree,
  type Reservation,
} from '../../storage/queries/reservations.js';
import type { Mode } from '../../storage/schema.js';

/**
 * Claiming a unique code one create at a time: the total (amount + code) must be unique among a
 * merchant's open transactions of one mode. The primary key of reserved_totals (merchant, mode, total)
 * is what guarantees it; the rules for choosing candidates are domain/unique-codes.ts.
 */

export interface Claim {
  trx: Tx;
  merchantId: string;
  mode: Mode;
  amount: number;
  id: string;
  now: number;
  reservedUntil: number;
}

/**
 * A free code in low..high for the claim, or unique_code_exhausted. Fast path: a few random codes,
 * reading only their rows. Reading the whole range costs one row per open transaction in it (~3 ms at
 * 900 rows, more than the rest of a create), and while the range is not crowded a random pick is
 * almost always free.
 */
export async function claimCode(claim: Claim, low: number, high: number): Promise<number> {
  const { trx, merchantId, mode, amount, now } = claim;
  if (wideEnoughToSample(low, high)) {
    const sample = sampleCodes(low, high);
    const rows = await readReservationsAt(
      trx,
      merchantId,
      mode,
      sample.map((c) => amount + c),
    );
    const code = await claimOneOf(claim, sample, rows);
    if (code !== null) return code;
  }
  // A merchant's reservations of some totals, and of a range of totals: prepared reads (storage/queries/reservations.ts).
  const inRange = await readReservationsBetween(trx, merchantId, mode, amount + low, amount + high);
  const all: number[] = [];
  for (let c = low; c <= high; c++) all.push(c);
  const code = await claimOneOf(claim, all, inRange);
  if (code !== null) return code;
  throw exhausted(inRange, now);
}

/**
 * Claims one of `codes` (in random order) that `rows` (their reserved_totals rows) do not show as held;
 * null when none could be claimed (takeRandom says why random). A failed attempt must leave no
 * row lock behind, or two creates each holding one row and wanting the other's deadlock: so a free
 * total is claimed with INSERT .. DO NOTHING, and a lapsed reservation with an UPDATE whose condition
 * is re-checked (neither locks a row it skips).
 */
async function claimOneOf(
  { trx, merchantId, mode, amount, id, now, reservedUntil }: Claim,
  codes: number[],
  rows: Reservation[],
): Promise<number | null> {
  const stale = new Set(rows.filter((r) => r.reserved_until <= now).map((r) => r.total_amount - amount));
  const taken = new Set(rows.filter((r) => r.reserved_until > now).map((r) => r.total_amount - amount));
  const free = codes.filter((c) => !taken.has(c));
  while (free.length > 0) {
    const pick = takeRandom(free);
    const total = amount + pick;
    const reservation = {
      merchant_id: merchantId,
      mode,
      total_amount: total,
      transaction_id: id,
      reserved_until: reservedUntil,
    };
    const won = stale.has(pick)
      ? await reclaimLapsedTotal(trx, reservation, now)
      : await reserveTotalIfFree(trx, reservation);
    if (won === id) return pick;
  }
  return null;
}
