import { AppError } from '../domain/errors.js';
import { newTransactionId } from '../domain/ids.js';
import { parseQris, toDynamic, type ParsedQris } from '../domain/qris/index.js';
import type { TransactionsTable } from '../storage/schema.js';
import { acquirerExpiry, requestAcquirerCode, schedulePoll, snapSourceFor } from '../sources/snap/issue.js';
import type { SnapSource } from '../sources/snap/config.js';
import type { Deps } from './deps.js';
import { runInTransaction } from '../storage/unit-of-work.js';
import { createInBatch, type BatchedCreate } from './create-batch.js';
import { claimCode, idempotencyKey, insertRow, lifetime, LostRace, pendingRow, wideEnoughToSample, type CreateTransactionInput } from './unique-codes.js';

export type { CreateTransactionInput } from './unique-codes.js';

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
    const create: BatchedCreate = { input, code, low: uniqueCodeMin, high: highestCode };
    // Plain creates (nothing unique but the total, and a range wide enough to sample) are made in
    // batches; a ref or an Idempotency-Key needs the one-by-one path, which isolates a lost race.
    const plain = input.ref === null && input.idempotency === null && wideEnoughToSample(uniqueCodeMin, highestCode);
    const transaction = plain ? await createInBatch(deps, create, (c) => insertWithFreeCode(deps, c)) : await insertWithFreeCode(deps, create);
    return { transaction, replayed: false };
  } catch (err) {
    if (!(err instanceof LostRace)) throw err;
    // Another request with the same ref or Idempotency-Key committed first: answer as a replay of it.
    const winner = await findEarlier(deps, input);
    if (winner) return { transaction: winner, replayed: true };
    throw new AppError('service_unavailable', 'a concurrent request interfered; retry', { retryAfter: 1 });
  }
}

/** One create in a database transaction of its own (joining the group commit on SQLite). */
function insertWithFreeCode(deps: Deps, { input, code, low, high }: BatchedCreate): Promise<TransactionsTable> {
  return runInTransaction(deps, async (trx) => {
    const now = deps.now();
    const { expiresAt, reservedUntil } = lifetime(deps, input, now);
    const id = newTransactionId();
    const claim = { trx, merchantId: input.merchantId, mode: input.mode, amount: input.amount, id, now, reservedUntil };
    const uniqueCode = await claimCode(claim, low, high, true);
    const total = input.amount + uniqueCode;
    const row = pendingRow(input, { id, now, expiresAt, uniqueCode, qris: toDynamic(code, total), sourceId: null, acquirerReference: null });
    await insertRow(trx, input, row, now);
    return row;
  });
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
  const expiresAt = acquirerExpiry(source, now, lifetime(deps, input, now).expiresAt);
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
