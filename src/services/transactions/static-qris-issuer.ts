import { AppError } from '../../domain/errors.js';
import { newTransactionId } from '../../domain/ids.js';
import { parseQris, toDynamic } from '../../domain/qris/index.js';
import { codeRange, lifetime, wideEnoughToSample } from '../../domain/unique-codes.js';
import { readMerchantStaticQris } from '../../storage/queries/merchants.js';
import type { TransactionsTable } from '../../storage/schema.js';
import { createInBatch } from './create-batch.js';
import type { BatchedCreate } from './create-queue.js';
import type { CreateTransactionInput } from './create-input.js';
import type { CodeIssuer, Deps } from '../deps.js';
import { PRINCIPAL_CACHE_MS } from '../merchants/principal-cache.js';
import type { StaticCode } from '../state.js';
import { claimKey } from './claim-key.js';
import { insertRow } from './insert-transaction.js';
import { pendingRow } from './pending-row.js';
import { claimCode } from './unique-codes.js';

/**
 * The merchant's static QRIS made dynamic: the amount plus a unique code, so that a payment is matched
 * by its total. The code cannot be revoked at the payer's bank, so a cancel has nothing to void: the
 * total simply stays reserved for the grace (cancel-transaction.ts).
 */
export const staticQrisIssuer: CodeIssuer = {
  issue,
  cancel: async () => 'cancelled',
  // The payer's money went to the merchant's own account: only the merchant can give it back, and a
  // refund here records that it did (services/refunds/refund-transaction.ts).
  refunds: 'record',
  refund: async () => {
    throw new AppError('internal_error', 'a refund of a static-QRIS code is a record, never asked of an issuer');
  },
};

/**
 * How long a merchant's unique-code mode is kept: a change made in this process is seen at once (its
 * service forgets the entry), one made by another process (the CLI, another instance) within the time an
 * API key's revoke takes there (the principal cache's, one setting for both).
 */
const MODE_CACHE_MS = PRINCIPAL_CACHE_MS;

// A merchant's static code never changes once stored, so its parse is kept for the life of the gateway
// (deps.state, one per gateway); its unique-code mode is read again every MODE_CACHE_MS with it.
async function merchantCode(deps: Deps, merchantId: string): Promise<StaticCode> {
  const now = deps.now();
  const cached = deps.state.staticCodes.get(merchantId);
  if (cached && now < cached.until) return cached;
  const stored = await readMerchantStaticQris(deps.db, merchantId);
  if (stored === undefined) throw new AppError('merchant_not_found', 'the merchant of this key no longer exists');
  const entry: StaticCode = {
    code: cached?.code ?? parseQris(stored.qris),
    uniqueCodeMode: stored.uniqueCodeMode,
    until: now + MODE_CACHE_MS,
  };
  deps.state.staticCodes.set(merchantId, entry);
  return entry;
}

async function issue(deps: Deps, input: CreateTransactionInput): Promise<TransactionsTable> {
  const { code, uniqueCodeMode } = await merchantCode(deps, input.merchantId);
  // Signed offsets: a subtracted code is negative, so the total is amount + code on every path.
  const range = codeRange(deps.config, input.amount, uniqueCodeMode);
  if (!range) {
    throw new AppError(
      'amount_out_of_range',
      uniqueCodeMode === 'add'
        ? 'amount leaves no room for the unique code under the maximum'
        : 'amount leaves no room to subtract the unique code above the minimum',
      { param: 'amount' },
    );
  }
  const create: BatchedCreate = { input, code, ...range };
  // Creates without a ref (an Idempotency-Key is fine: the batch claims keys first and hands a lost one
  // back) and with a range wide enough to sample are made in batches; a ref needs the one-by-one path,
  // which isolates a lost race on it. A merchant with a daily quota is counted create by create, in
  // each create's own transaction.
  // A point-of-sale charge also goes one by one: its row has columns (the cashier, the note) that the
  // batch's multi-row insert does not carry, and its audit entry belongs in its own transaction.
  const plain =
    input.ref === null &&
    input.dailyQuota == null &&
    input.sale === undefined &&
    wideEnoughToSample(range.low, range.high);
  return plain ? createInBatch(deps, create, (c) => insertWithFreeCode(deps, c)) : insertWithFreeCode(deps, create);
}

/** One create in a database transaction of its own (joining the group commit on SQLite). */
function insertWithFreeCode(deps: Deps, { input, code, low, high }: BatchedCreate): Promise<TransactionsTable> {
  return deps.db.runInTransaction(async (trx) => {
    const now = deps.now();
    const { expiresAt, reservedUntil } = lifetime(deps.config, input.expiresInSeconds, now);
    const id = newTransactionId();
    // The key before the total: the lock order of every static-QRIS create (claim-key.ts).
    if (input.idempotency) await claimKey(trx, input, id, now);
    const claim = { trx, merchantId: input.merchantId, mode: input.mode, amount: input.amount, id, now, reservedUntil };
    const uniqueCode = await claimCode(claim, low, high);
    const total = input.amount + uniqueCode;
    const row = pendingRow(input, {
      id,
      now,
      expiresAt,
      uniqueCode,
      qris: toDynamic(code, total),
      sourceId: null,
      acquirerReference: null,
    });
    await insertRow(trx, input, row, now, true);
    return row;
  });
}
