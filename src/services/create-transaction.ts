import { randomInt } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import { newTransactionId } from '../domain/ids.js';
import { parseQris, toDynamic, type ParsedQris } from '../domain/qris/index.js';
import type { Transaction } from 'kysely';
import type { DB, Mode, TransactionsTable } from '../storage/schema.js';
import { acquirerExpiry, requestAcquirerCode, schedulePoll, snapSourceFor } from '../sources/snap/issue.js';
import type { SnapSource } from '../sources/snap/config.js';
import type { Deps } from './deps.js';
import { enqueueEmail } from './outbox.js';
import { runInTransaction } from '../storage/unit-of-work.js';

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

export interface CreateTransactionResult {
  transaction: TransactionsTable;
  /** True when an earlier transaction was returned for a repeated ref or Idempotency-Key. */
  replayed: boolean;
}

// A merchant's static code never changes once stored, so its parse is kept for the life of the process.
const staticCodes = new Map<string, ParsedQris>();

async function merchantCode(deps: Deps, merchantId: string): Promise<ParsedQris> {
  const cached = staticCodes.get(merchantId);
  if (cached) return cached;
  const row = await deps.db.selectFrom('merchants').select('qris_static').where('id', '=', merchantId).executeTakeFirst();
  if (!row) throw new AppError('merchant_not_found', 'the merchant of this key no longer exists');
  const parsed = parseQris(row.qris_static);
  staticCodes.set(merchantId, parsed);
  return parsed;
}

// Test and live keys of one merchant are separate worlds: the same Idempotency-Key in each names two
// different requests.
const idempotencyKey = (input: CreateTransactionInput): string => `${input.mode}:${input.idempotency!.key}`;

/** Raised inside the database transaction to roll it back when a concurrent request won a unique key. */
class LostRace extends Error {}

export async function createTransaction(deps: Deps, input: CreateTransactionInput): Promise<CreateTransactionResult> {
  const earlier = await findEarlier(deps, input);
  if (earlier) return { transaction: earlier, replayed: true };

  try {
    // A merchant with a SNAP source gets codes from its acquirer, matched by the acquirer's reference.
    const snap = await snapSourceFor(deps, input.merchantId, input.mode);
    if (snap) return { transaction: await insertAcquirerIssued(deps, input, snap), replayed: false };

    const code = await merchantCode(deps, input.merchantId);
    const { uniqueCodeMin, uniqueCodeMax, amountMax } = deps.config;
    const highestCode = Math.min(uniqueCodeMax, amountMax - input.amount);
    if (highestCode < uniqueCodeMin) {
      throw new AppError('amount_out_of_range', 'amount leaves no room for the unique code under the maximum', {
        param: 'amount',
      });
    }
    return { transaction: await insertWithFreeCode(deps, input, code, uniqueCodeMin, highestCode), replayed: false };
  } catch (err) {
    if (!(err instanceof LostRace)) throw err;
    // Another request with the same ref or Idempotency-Key committed first: answer as a replay of it.
    const winner = await findEarlier(deps, input);
    if (winner) return { transaction: winner, replayed: true };
    throw new AppError('service_unavailable', 'a concurrent request interfered; retry', { retryAfter: 1 });
  }
}

async function insertWithFreeCode(
  deps: Deps,
  input: CreateTransactionInput,
  code: ParsedQris,
  lowCode: number,
  highCode: number,
): Promise<TransactionsTable> {
  return runInTransaction(deps, async (trx) => {
    const now = deps.now();
    const ttl = input.expiresInSeconds ?? deps.config.transactionTtlSeconds;
    const expiresAt = now + ttl * 1000;
    const reservedUntil = expiresAt + deps.config.reservationGraceSeconds * 1000;
    const id = newTransactionId();

    const claim: Claim = { trx, input, id, now, reservedUntil };
    // Fast path: a few random codes, reading only their rows. Reading the whole range costs one row per
    // open transaction in it (~3 ms at 900 rows, more than the rest of a create), and while the range is
    // not crowded a random pick is almost always free. The primary key decides either way.
    let uniqueCode: number | null = null;
    if (highCode - lowCode + 1 > 4 * SAMPLE) {
      const sample = sampleCodes(lowCode, highCode);
      const rows = await trx
        .selectFrom('reserved_totals')
        .select(['total_amount', 'reserved_until'])
        .where('merchant_id', '=', input.merchantId)
        .where('mode', '=', input.mode)
        .where('total_amount', 'in', sample.map((c) => input.amount + c))
        .execute();
      uniqueCode = await claimOneOf(claim, sample, rows);
    }
    let held: Array<{ reserved_until: number }> = [];
    if (uniqueCode === null) {
      const inRange = await trx
        .selectFrom('reserved_totals')
        .select(['total_amount', 'reserved_until'])
        .where('merchant_id', '=', input.merchantId)
        .where('mode', '=', input.mode)
        .where('total_amount', '>=', input.amount + lowCode)
        .where('total_amount', '<=', input.amount + highCode)
        .execute();
      held = inRange.filter((r) => r.reserved_until > now);
      const all: number[] = [];
      for (let c = lowCode; c <= highCode; c++) all.push(c);
      uniqueCode = await claimOneOf(claim, all, inRange);
    }
    if (uniqueCode === null) {
      const soonest = held.reduce((min, r) => Math.min(min, r.reserved_until), Number.POSITIVE_INFINITY);
      const retryAfter = Number.isFinite(soonest) ? Math.max(1, Math.ceil((soonest - now) / 1000)) : 1;
      throw new AppError(
        'unique_code_exhausted',
        'every unique code for this amount is held by an open transaction; retry later or use another amount',
        { retryAfter: Math.min(retryAfter, 3600) },
      );
    }

    const total = input.amount + uniqueCode;
    const row = pendingRow(input, { id, now, expiresAt, uniqueCode, qris: toDynamic(code, total), sourceId: null, acquirerReference: null });
    await insertRow(trx, input, row, now);
    return row;
  });
}

/** How many random codes the fast path tries before reading the whole range (16: a range 70% held still
 * falls back only 0.3% of the time). */
const SAMPLE = 16;

function sampleCodes(low: number, high: number): number[] {
  const picked = new Set<number>();
  while (picked.size < SAMPLE) picked.add(low + randomInt(high - low + 1));
  return [...picked];
}

interface Claim {
  trx: Transaction<DB>;
  input: CreateTransactionInput;
  id: string;
  now: number;
  reservedUntil: number;
}

/**
 * Claims one of `codes` (in random order) that `rows` (their reserved_totals rows) do not show as held;
 * null when none could be claimed. A random free code rather than the lowest keeps concurrent creates
 * (several instances on PostgreSQL) from all racing for the same row. The primary key on (merchant,
 * mode, total) is what guarantees uniqueness. A failed attempt must leave no row lock behind, or two
 * creates each holding one row and wanting the other's deadlock: so a free total is claimed with
 * INSERT .. DO NOTHING, and a lapsed reservation with an UPDATE whose condition is re-checked (neither
 * locks a row it skips).
 */
async function claimOneOf(
  { trx, input, id, now, reservedUntil }: Claim,
  codes: number[],
  rows: Array<{ total_amount: number; reserved_until: number }>,
): Promise<number | null> {
  const stale = new Set(rows.filter((r) => r.reserved_until <= now).map((r) => r.total_amount - input.amount));
  const taken = new Set(rows.filter((r) => r.reserved_until > now).map((r) => r.total_amount - input.amount));
  const free = codes.filter((c) => !taken.has(c));
  while (free.length > 0) {
    const pick = free.splice(randomInt(free.length), 1)[0]!;
    const total = input.amount + pick;
    const won = stale.has(pick)
      ? await trx
          .updateTable('reserved_totals')
          .set({ transaction_id: id, reserved_until: reservedUntil })
          .where('merchant_id', '=', input.merchantId)
          .where('mode', '=', input.mode)
          .where('total_amount', '=', total)
          .where('reserved_until', '<=', now)
          .returning('transaction_id')
          .executeTakeFirst()
      : await trx
          .insertInto('reserved_totals')
          .values({ merchant_id: input.merchantId, mode: input.mode, total_amount: total, transaction_id: id, reserved_until: reservedUntil })
          .onConflict((oc) => oc.columns(['merchant_id', 'mode', 'total_amount']).doNothing())
          .returning('transaction_id')
          .executeTakeFirst();
    if (won?.transaction_id === id) return pick;
  }
  return null;
}

/**
 * The acquirer's code: no unique code and no reserved total, since payments are matched by the
 * acquirer's reference. The acquirer is called before the database transaction opens, so a slow
 * acquirer never holds a write lock; a create that then loses a ref race leaves an unused code at the
 * acquirer, which expires there.
 */
async function insertAcquirerIssued(deps: Deps, input: CreateTransactionInput, source: SnapSource): Promise<TransactionsTable> {
  if (input.amount > deps.config.amountMax) {
    throw new AppError('amount_out_of_range', `amount is above the maximum of ${deps.config.amountMax}`, { param: 'amount' });
  }
  const now = deps.now();
  const id = newTransactionId();
  const expiresAt = acquirerExpiry(source, now, now + (input.expiresInSeconds ?? deps.config.transactionTtlSeconds) * 1000);
  const code = await requestAcquirerCode(deps, source, { trxid: id, amount: input.amount, expiresAt });
  const row = pendingRow(input, {
    id,
    now,
    expiresAt,
    uniqueCode: 0,
    qris: code.qris,
    sourceId: source.id,
    acquirerReference: code.referenceNo,
  });
  return runInTransaction(deps, async (trx) => {
    await insertRow(trx, input, row, now);
    await schedulePoll(trx, { transactionId: id, sourceId: source.id, createdAt: now, expiresAt });
    return row;
  });
}

/** A new pending transaction: the two ways of issuing a code differ only in these values. */
function pendingRow(
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
  };
}

/** The transaction row, its Idempotency-Key claim and its invoice e-mail; LostRace on a lost unique key. */
async function insertRow(trx: Transaction<DB>, input: CreateTransactionInput, row: TransactionsTable, now: number): Promise<void> {
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
  if (row.email !== null) {
    await enqueueEmail(trx, { merchantId: row.merchant_id, transactionId: id, kind: 'invoice', recipient: row.email, now });
  }
}

/** The transaction an earlier request with the same Idempotency-Key or ref created, if any. */
async function findEarlier(deps: Deps, input: CreateTransactionInput): Promise<TransactionsTable | null> {
  if (input.idempotency) {
    const prior = await deps.db
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'transaction_id'])
      .where('merchant_id', '=', input.merchantId)
      .where('idem_key', '=', idempotencyKey(input))
      .executeTakeFirst();
    if (prior) {
      if (prior.request_hash !== input.idempotency.requestHash) {
        throw new AppError('idempotency_key_reused', 'this Idempotency-Key was used with a different request', {
          param: 'Idempotency-Key',
        });
      }
      const tx = await deps.db.selectFrom('transactions').selectAll().where('id', '=', prior.transaction_id).executeTakeFirst();
      if (tx) return tx;
    }
  }
  if (input.ref !== null) {
    const tx = await deps.db
      .selectFrom('transactions')
      .selectAll()
      .where('merchant_id', '=', input.merchantId)
      .where('mode', '=', input.mode)
      .where('ref', '=', input.ref)
      .executeTakeFirst();
    if (tx) {
      if (tx.amount !== input.amount) {
        throw new AppError('ref_conflict', `ref ${input.ref} already belongs to a transaction of another amount`, {
          param: 'ref',
        });
      }
      return tx;
    }
  }
  return null;
}
