import { randomInt } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { AppError } from '../domain/errors.js';
import { prepareQuery } from '../storage/prepared.js';
import { prepareRowsQuery } from '../storage/prepared-rows.js';
import type { DB, Mode, TransactionsTable } from '../storage/schema.js';
import type { Deps } from './deps.js';
import { enqueueEmail } from './outbox.js';

/**
 * Claiming a unique code: the total (amount + code) must be unique among a merchant's open
 * transactions of one mode. The primary key of reserved_totals (merchant, mode, total) is what
 * guarantees it; everything here only picks candidates that are likely to be free.
 */

export interface CreateTransactionInput {
  merchantId: string;
  mode: Mode;
  /** Whole rupiah, already validated against the configured limits. */
  amount: number;
  email: string | null;
  ref: string | null;
  expiresInSeconds: number | null;
  idempotency: { key: string; requestHash: string } | null;
}

/** Raised inside the database transaction to roll it back when a concurrent request won a unique key. */
export class LostRace extends Error {}

/** How many random codes are tried before reading the whole range (16: a range 70% held still falls
 * back only 0.3% of the time). Ranges smaller than 4x this are read whole at once. */
export const SAMPLE = 16;

/** Whether low..high is wide enough to try random codes first (a narrow range is read whole). */
export const wideEnoughToSample = (low: number, high: number): boolean => high - low + 1 > 4 * SAMPLE;

export function sampleCodes(low: number, high: number, count = SAMPLE): number[] {
  const picked = new Set<number>();
  while (picked.size < count) picked.add(low + randomInt(high - low + 1));
  return [...picked];
}

export interface Claim {
  trx: Transaction<DB>;
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
export async function claimCode(claim: Claim, low: number, high: number, trySampleFirst: boolean): Promise<number> {
  const { trx, merchantId, mode, amount, now } = claim;
  if (trySampleFirst && wideEnoughToSample(low, high)) {
    const sample = sampleCodes(low, high);
    const rows = await reservationsAt.execute(trx, sample.map((c) => ({ total: amount + c })), { merchantId, mode });
    const code = await claimOneOf(claim, sample, rows);
    if (code !== null) return code;
  }
  const inRange = await reservationsBetween.execute(trx, { merchantId, mode, from: amount + low, to: amount + high });
  const all: number[] = [];
  for (let c = low; c <= high; c++) all.push(c);
  const code = await claimOneOf(claim, all, inRange);
  if (code !== null) return code;
  throw exhausted(inRange, now);
}

// A merchant's reservations of some totals, and of a range of totals: read by the one-by-one claim below
// and by batched creates (create-batch.ts), compiled once per database (and list length).
export const reservationsAt = prepareRowsQuery((db: Kysely<DB>, totals: readonly { total: number }[], p: { merchantId: string; mode: Mode }) =>
  db
    .selectFrom('reserved_totals')
    .select(['total_amount', 'reserved_until'])
    .where('merchant_id', '=', p.merchantId)
    .where('mode', '=', p.mode)
    .where('total_amount', 'in', totals.map((t) => t.total)),
);
export const reservationsBetween = prepareQuery((db: Kysely<DB>, p: { merchantId: string; mode: Mode; from: number; to: number }) =>
  db
    .selectFrom('reserved_totals')
    .select(['total_amount', 'reserved_until'])
    .where('merchant_id', '=', p.merchantId)
    .where('mode', '=', p.mode)
    .where('total_amount', '>=', p.from)
    .where('total_amount', '<=', p.to),
);

/** The refusal when every code of an amount is held: Retry-After is when the soonest hold lapses. */
export function exhausted(rows: ReadonlyArray<{ reserved_until: number }>, now: number): AppError {
  const soonest = rows.reduce((min, r) => (r.reserved_until > now ? Math.min(min, r.reserved_until) : min), Number.POSITIVE_INFINITY);
  const retryAfter = Number.isFinite(soonest) ? Math.max(1, Math.ceil((soonest - now) / 1000)) : 1;
  return new AppError(
    'unique_code_exhausted',
    'every unique code for this amount is held by an open transaction; retry later or use another amount',
    { retryAfter: Math.min(retryAfter, 3600) },
  );
}

/**
 * Claims one of `codes` (in random order) that `rows` (their reserved_totals rows) do not show as held;
 * null when none could be claimed. A random free code rather than the lowest keeps concurrent creates
 * (several instances on PostgreSQL) from all racing for the same row. A failed attempt must leave no
 * row lock behind, or two creates each holding one row and wanting the other's deadlock: so a free
 * total is claimed with INSERT .. DO NOTHING, and a lapsed reservation with an UPDATE whose condition
 * is re-checked (neither locks a row it skips).
 */
async function claimOneOf(
  { trx, merchantId, mode, amount, id, now, reservedUntil }: Claim,
  codes: number[],
  rows: Array<{ total_amount: number; reserved_until: number }>,
): Promise<number | null> {
  const stale = new Set(rows.filter((r) => r.reserved_until <= now).map((r) => r.total_amount - amount));
  const taken = new Set(rows.filter((r) => r.reserved_until > now).map((r) => r.total_amount - amount));
  const free = codes.filter((c) => !taken.has(c));
  while (free.length > 0) {
    const pick = free.splice(randomInt(free.length), 1)[0]!;
    const total = amount + pick;
    const won = stale.has(pick)
      ? await trx
          .updateTable('reserved_totals')
          .set({ transaction_id: id, reserved_until: reservedUntil })
          .where('merchant_id', '=', merchantId)
          .where('mode', '=', mode)
          .where('total_amount', '=', total)
          .where('reserved_until', '<=', now)
          .returning('transaction_id')
          .executeTakeFirst()
      : await trx
          .insertInto('reserved_totals')
          .values({ merchant_id: merchantId, mode, total_amount: total, transaction_id: id, reserved_until: reservedUntil })
          .onConflict((oc) => oc.columns(['merchant_id', 'mode', 'total_amount']).doNothing())
          .returning('transaction_id')
          .executeTakeFirst();
    if (won?.transaction_id === id) return pick;
  }
  return null;
}

/** A new pending transaction: the two ways of issuing a code differ only in these values. */
export function pendingRow(
  input: CreateTransactionInput,
  v: { id: string; now: number; expiresAt: number; uniqueCode: number; qris: string; sourceId: string | null; acquirerReference: string | null },
): TransactionsTable {
  return {
    id: v.id,
    merchant_id: input.merchantId,
    mode: input.mode,
    status: 'pending',
    amount: input.amount,
    unique_code: v.uniqueCode,
    total_amount: input.amount + v.uniqueCode,
    currency: 'IDR',
    email: input.email,
    ref: input.ref,
    qris: v.qris,
    created_at: v.now,
    expires_at: v.expiresAt,
    paid_at: null,
    paid_late: 0,
    payment_id: null,
    updated_at: v.now,
    source_id: v.sourceId,
    acquirer_reference: v.acquirerReference,
    cancelled_at: null,
  };
}

// Test and live keys of one merchant are separate worlds: the same Idempotency-Key in each names two
// different requests.
export const idempotencyKey = (input: CreateTransactionInput): string => `${input.mode}:${input.idempotency!.key}`;

/** The transaction row, its Idempotency-Key claim and its invoice e-mail; LostRace on a lost unique key. */
export async function insertRow(trx: Transaction<DB>, input: CreateTransactionInput, row: TransactionsTable, now: number): Promise<void> {
  const { id } = row;
  const inserted = await trx
    .insertInto('transactions')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) throw new LostRace();

  if (input.idempotency) {
    const claimed = await trx
      .insertInto('idempotency_keys')
      .values({
        merchant_id: input.merchantId,
        idem_key: idempotencyKey(input),
        request_hash: input.idempotency.requestHash,
        transaction_id: id,
        created_at: now,
      })
      .onConflict((oc) => oc.doNothing())
      .returning('transaction_id')
      .executeTakeFirst();
    if (!claimed) throw new LostRace();
  }
  if (row.email !== null) await queueInvoice(trx, row, now);
}

export function queueInvoice(trx: Transaction<DB>, row: TransactionsTable, now: number): Promise<void> {
  return enqueueEmail(trx, { merchantId: row.merchant_id, transactionId: row.id, kind: 'invoice', recipient: row.email!, now });
}

/** When a transaction created now expires, and until when its total stays reserved. */
export function lifetime(deps: Deps, input: CreateTransactionInput, now: number): { expiresAt: number; reservedUntil: number } {
  const ttl = input.expiresInSeconds ?? deps.config.transactionTtlSeconds;
  const expiresAt = now + ttl * 1000;
  return { expiresAt, reservedUntil: expiresAt + deps.config.reservationGraceSeconds * 1000 };
}
