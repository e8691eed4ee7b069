import type { Tx } from '../../storage/executor.js';
import { claimIdempotencyKey } from '../../storage/queries/idempotency.js';
import { insertTransactionIfAbsent } from '../../storage/queries/transactions.js';
import type { TransactionsTable } from '../../storage/schema.js';
import type { CreateTransactionInput } from './create-input.js';
import { enqueueEmail } from '../email/enqueue-email.js';
import { consumeQuota } from '../merchants/consume-quota.js';

// Writing a new pending transaction, whichever issuer made its code.

/** Raised inside the database transaction to roll it back when a concurrent request won a unique key. */
export class LostRace extends Error {}

/** A new pending transaction: the issuers differ only in these values. */
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

/**
 * Claims the create's Idempotency-Key for its transaction id; LostRace when another request holds it.
 * The static-QRIS paths (lone and batched) claim it before any reservation, so every create takes its
 * locks in one order, key then total (on PostgreSQL crossed orders could deadlock two racing retries).
 */
export async function claimKey(trx: Tx, input: CreateTransactionInput, transactionId: string, now: number): Promise<void> {
  const claimed = await claimIdempotencyKey(trx, idempotencyRow(input, transactionId, now));
  if (!claimed) throw new LostRace();
}

export function idempotencyRow(input: CreateTransactionInput, transactionId: string, now: number) {
  return {
    merchant_id: input.merchantId,
    idem_key: idempotencyKey(input),
    request_hash: input.idempotency!.requestHash,
    transaction_id: transactionId,
    created_at: now,
  };
}

/**
 * The transaction row, its Idempotency-Key claim (unless the caller made it first) and its invoice
 * e-mail; LostRace on a lost unique key.
 */
export async function insertRow(trx: Tx, input: CreateTransactionInput, row: TransactionsTable, now: number, keyClaimed = false): Promise<void> {
  if (!(await insertTransactionIfAbsent(trx, row))) throw new LostRace();
  if (input.dailyQuota != null) await consumeQuota(trx, input.merchantId, input.dailyQuota, now);
  if (input.idempotency && !keyClaimed) await claimKey(trx, input, row.id, now);
  if (row.email !== null) await queueInvoice(trx, row, now);
}

export function queueInvoice(trx: Tx, row: TransactionsTable, now: number): Promise<void> {
  return enqueueEmail(trx, { merchantId: row.merchant_id, transactionId: row.id, kind: 'invoice', recipient: row.email!, now });
}
