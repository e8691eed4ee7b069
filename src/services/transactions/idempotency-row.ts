import type { CreateTransactionInput } from './create-input.js';

// Test and live keys of one merchant are separate worlds: the same Idempotency-Key in each names two
// different requests.
export const idempotencyKey = (input: CreateTransactionInput): string => `${input.mode}:${input.idempotency!.key}`;

/** The idempotency_keys row that claims the create's Idempotency-Key for its transaction. */
export function idempotencyRow(input: CreateTransactionInput, transactionId: string, now: number) {
  return {
    merchant_id: input.merchantId,
    idem_key: idempotencyKey(input),
    request_hash: input.idempotency!.requestHash,
    transaction_id: transactionId,
    created_at: now,
  };
}
