import { AppError } from '../../domain/errors.js';
import { newTransactionId } from '../../domain/ids.js';
import { toDynamic } from '../../domain/qris/index.js';
import { exhausted, lifetime, sampleCodes, takeRandom } from '../../domain/unique-codes.js';
import type { Tx } from '../../storage/executor.js';
import { readReservationsAt, readReservationsBetween, reserveFreeTotals } from '../../storage/queries/reservations.js';
import { insertTransactions } from '../../storage/queries/transactions.js';
import type { TransactionsTable } from '../../storage/schema.js';
import type { CreateTransactionInput } from './create-input.js';
import type { BatchedCreate, CreateBatchStats, CreateQueue, WaitingCreate } from './create-queue.js';
import type { Deps } from '../deps.js';
import { idempotencyRow } from './idempotency-row.js';
import { pendingRow } from './pending-row.js';
import { queueInvoice } from './queue-invoice.js';
import { claimIdempotencyKeys } from '../../storage/queries/idempotency.js';

/**
 * Batched creates. A flash sale sends many plain creates (no ref; an Idempotency-Key is fine) at once; made one
 * by one, each costs four or five statements (on PostgreSQL as many network round trips, plus its own
 * commit). Creates that arrive in the same event-loop turn are instead made together in one database
 * transaction: one read of every candidate total, one multi-row insert of the reservations and one of
 * the transactions.
 *
 * Each caller is answered after the commit that holds its row. Creates whose random candidates were all
 * taken (a crowded amount) share one read of their amount's whole range and take its free codes; if it
 * has none and none has lapsed, they are refused with unique_code_exhausted, as a lone create would be.
 * A create that still has no code (a lapsed reservation to reclaim, or a concurrent writer that won
 * the row) is made on its own after the commit, exactly as a lone create is. Keeping those one-by-one
 * claims out of the batch keeps its key locks in one sorted statement, so two batches on PostgreSQL can
 * never deadlock. If the batch itself fails (a database error), every create in it is made on its own,
 * so one bad create cannot fail its neighbours.
 */

/** Bounds the statement sizes (the transaction insert has 19 parameters a row) and one commit's latency. */
export const MAX_CREATE_BATCH = 200;

/**
 * The create's row; an AppError when its amount has no code left at all (every one held, none lapsed),
 * which is its answer; or null: it is made on its own after the commit.
 */
type Outcome = TransactionsTable | AppError | null;

/** Creates one transaction with a free unique code, together with the other creates of this turn. */
export function createInBatch(
  deps: Deps,
  create: BatchedCreate,
  alone: (c: BatchedCreate) => Promise<TransactionsTable>,
): Promise<TransactionsTable> {
  const queue = deps.state.creates;
  return new Promise<TransactionsTable>((resolve, reject) => {
    queue.waiting.push({ ...create, resolve, reject });
    schedule(deps, queue, alone);
  });
}

/**
 * Batches made at once. On PostgreSQL two: creates arriving while they run wait and form the next, larger
 * batch, so a flash sale costs fewer round trips and commits per create (each a write and a wake-up on
 * both sides, and PostgreSQL's own work) than one small batch per event-loop turn, each on a connection
 * of its own; two rather than one so that a batch waiting on a lock (another instance's reservation of the
 * same total) does not hold up every create. Measured in the bench's fresh creates (50 connections, three
 * rounds each, medians): unbounded 2,022 creates a second, 360 µs of the gateway's CPU and 310 µs of
 * PostgreSQL's per create; with two 2,675 a second, 262 µs and 198 µs. On SQLite no bound: group commit
 * already queues every batch behind the running commit and its log flush (unit-of-work.ts).
 */
export const CREATE_BATCHES_AT_ONCE = { postgres: 2, sqlite: Number.POSITIVE_INFINITY } as const;
const batchesAtOnce = (deps: Deps): number => CREATE_BATCHES_AT_ONCE[deps.db.dialect];

function schedule(deps: Deps, queue: CreateQueue, alone: (c: BatchedCreate) => Promise<TransactionsTable>): void {
  if (queue.scheduled || queue.running >= batchesAtOnce(deps) || queue.waiting.length === 0) return;
  queue.scheduled = true;
  // setImmediate runs after this turn's I/O callbacks, so every create parsed in it joins.
  setImmediate(() => flush(deps, queue, alone));
}

function flush(deps: Deps, queue: CreateQueue, alone: (c: BatchedCreate) => Promise<TransactionsTable>): void {
  queue.scheduled = false;
  while (queue.waiting.length > 0 && queue.running < batchesAtOnce(deps)) {
    const batch = queue.waiting.splice(0, MAX_CREATE_BATCH);
    queue.running += 1;
    void runBatch(deps, queue.stats, batch, alone).finally(() => {
      queue.running -= 1;
      schedule(deps, queue, alone);
    });
  }
}

async function runBatch(
  deps: Deps,
  stats: CreateBatchStats,
  batch: WaitingCreate[],
  alone: (c: BatchedCreate) => Promise<TransactionsTable>,
): Promise<void> {
  if (batch.length === 1) {
    // It holds its slot until it is made, as a batch does.
    const only = batch[0]!;
    await alone(only).then(only.resolve, only.reject);
    return;
  }
  let outcomes: Outcome[];
  try {
    outcomes = await deps.db.runInTransaction((trx) => createAll(deps, trx, batch));
  } catch {
    // Nothing of the batch was committed; each create gets a transaction (and an error) of its own.
    stats.failed += 1;
    for (const w of batch) alone(w).then(w.resolve, w.reject);
    return;
  }
  stats.batches += 1;
  outcomes.forEach((row, i) => {
    const w = batch[i]!;
    if (row instanceof AppError) {
      stats.refused += 1;
      w.reject(row);
    } else if (row) {
      stats.made += 1;
      w.resolve(row);
    } else {
      stats.handedOn += 1;
      alone(w).then(w.resolve, w.reject);
    }
  });
}

interface Plan {
  create: BatchedCreate;
  id: string;
  expiresAt: number;
  reservedUntil: number;
  candidates: number[];
  code: number | null;
  /** Set when the amount has no code left at all (see Outcome). */
  refusal: AppError | null;
}

const groupOf = (input: CreateTransactionInput): string => `${input.merchantId}\u0000${input.mode}`;

async function createAll(deps: Deps, trx: Tx, batch: BatchedCreate[]): Promise<Outcome[]> {
  const now = deps.now();
  const plans: Plan[] = batch.map((create) => ({
    create,
    id: newTransactionId(),
    ...lifetime(deps.config, create.input.expiresInSeconds, now),
    // As many as a lone create samples (domain/unique-codes.ts); one that finds all of them held is
    // placed from its amount's range below, or made on its own.
    candidates: sampleCodes(create.low, create.high),
    code: null,
    refusal: null,
  }));

  // 0. The Idempotency-Keys, in one sorted statement before any total (the lock order of every create,
  // claim-key.ts). A key another request holds was claimed first: that create is left out of
  // the batch and made on its own, where the lost claim turns it into a replay of the winner.
  const keyed = plans.filter((p) => p.create.input.idempotency !== null);
  const lost = new Set<Plan>();
  if (keyed.length > 0) {
    const claims: Array<{ plan: Plan; row: ReturnType<typeof idempotencyRow> }> = [];
    const seen = new Set<string>();
    for (const p of keyed) {
      const row = idempotencyRow(p.create.input, p.id, now);
      const name = `${row.merchant_id}\u0000${row.idem_key}`;
      // The same key twice in one turn (a client retrying at once): the first claims it, the other replays.
      if (seen.has(name)) lost.add(p);
      else claims.push({ plan: p, row });
      seen.add(name);
    }
    claims.sort((a, b) => cmp(a.row.merchant_id, b.row.merchant_id) || cmp(a.row.idem_key, b.row.idem_key));
    const won = await claimIdempotencyKeys(
      trx,
      claims.map((c) => c.row),
    );
    for (const c of claims) if (!won.has(`${c.row.merchant_id}\u0000${c.row.idem_key}`)) lost.add(c.plan);
  }

  // 1. Every candidate total's reservation row, one read per merchant and mode.
  const byGroup = new Map<string, Plan[]>();
  for (const p of plans) {
    if (lost.has(p)) continue;
    const g = groupOf(p.create.input);
    const list = byGroup.get(g);
    if (list) list.push(p);
    else byGroup.set(g, [p]);
  }
  const chosen: Plan[] = [];
  for (const group of byGroup.values()) {
    const { merchantId, mode } = group[0]!.create.input;
    const totals = new Set<number>();
    for (const p of group) for (const c of p.candidates) totals.add(p.create.input.amount + c);
    const rows = await readReservationsAt(trx, merchantId, mode, [...totals]);
    // Any existing row rules a total out here, a lapsed one too: reclaiming that needs a conditional
    // update, which the one-by-one path does.
    const unavailable = new Set(rows.map((r) => r.total_amount));
    // 2. The first candidate (they are in random order) that no row holds and no batch-mate took.
    for (const p of group) {
      const pick = p.candidates.find((c) => !unavailable.has(p.create.input.amount + c));
      if (pick === undefined) continue;
      p.code = pick;
      unavailable.add(p.create.input.amount + pick);
      chosen.push(p);
    }
    await placeCrowded(trx, now, group, unavailable, chosen);
  }

  // 3. One insert for every chosen reservation. Sorted, so two batches inserting at once take the key
  // locks in the same order (PostgreSQL waits on an uncommitted conflicting row; crossed orders could
  // deadlock). A row that another writer took meanwhile is skipped and comes back missing.
  if (chosen.length > 0) {
    chosen.sort((a, b) => cmp(groupOf(a.create.input), groupOf(b.create.input)) || totalOf(a) - totalOf(b));
    // One statement for the batch, compiled once per batch size (storage/queries/reservations.ts).
    const winners = await reserveFreeTotals(
      trx,
      chosen.map((p) => ({
        merchant_id: p.create.input.merchantId,
        mode: p.create.input.mode,
        total_amount: totalOf(p),
        transaction_id: p.id,
        reserved_until: p.reservedUntil,
      })),
    );
    for (const p of chosen) if (!winners.has(p.id)) p.code = null;
  }

  // 4. One insert for every transaction row, then the invoices.
  const rows = new Map<Plan, TransactionsTable>();
  for (const p of plans) {
    if (p.code === null) continue;
    const total = p.create.input.amount + p.code;
    rows.set(
      p,
      pendingRow(p.create.input, {
        id: p.id,
        now,
        expiresAt: p.expiresAt,
        uniqueCode: p.code,
        qris: toDynamic(p.create.code, total),
        sourceId: null,
        acquirerReference: null,
      }),
    );
  }
  if (rows.size > 0) await insertTransactions(trx, [...rows.values()]);
  for (const row of rows.values()) if (row.email !== null) await queueInvoice(trx, row, now);

  return plans.map((p) => rows.get(p) ?? p.refusal);
}

/**
 * 2b. A crowded amount (a flash sale at one price): creates whose candidates were all held get codes
 * from ONE read of the amount's whole range, instead of each reading it on its own after the commit.
 * Only codes with no row at all are handed out here; if none is left and none has lapsed either, the
 * amount is exhausted and those creates are refused here, exactly as the one-by-one path would refuse
 * them. Lapsed holds are left to the one-by-one path, which reclaims them with a conditional update.
 */
async function placeCrowded(
  trx: Tx,
  now: number,
  group: Plan[],
  unavailable: Set<number>,
  chosen: Plan[],
): Promise<void> {
  const crowded = new Map<string, Plan[]>();
  for (const p of group) {
    if (p.code !== null) continue;
    const key = `${p.create.input.amount}:${p.create.low}:${p.create.high}`;
    const list = crowded.get(key);
    if (list) list.push(p);
    else crowded.set(key, [p]);
  }
  for (const waiting of crowded.values()) {
    const { create } = waiting[0]!;
    const { amount, merchantId, mode } = create.input;
    const held = await readReservationsBetween(trx, merchantId, mode, amount + create.low, amount + create.high);
    const taken = new Set(held.map((r) => r.total_amount));
    const free: number[] = [];
    for (let c = create.low; c <= create.high; c++)
      if (!taken.has(amount + c) && !unavailable.has(amount + c)) free.push(c);
    const anyLapsed = held.some((r) => r.reserved_until <= now);
    for (const p of waiting) {
      if (free.length === 0) {
        if (!anyLapsed) p.refusal = exhausted(held, now);
        continue;
      }
      const pick = takeRandom(free);
      p.code = pick;
      unavailable.add(amount + pick);
      chosen.push(p);
    }
  }
}

const totalOf = (p: Plan): number => p.create.input.amount + p.code!;
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
