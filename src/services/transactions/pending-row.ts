import type { TransactionsTable } from '../../storage/schema.js';
import type { CreateTransactionInput } from './create-input.js';

/** A new pending transaction: the issuers differ only in these values. */
export function pendingRow(
  input: CreateTransactionInput,
  v: {
    id: string;
    now: number;
    expiresAt: number;
    uniqueCode: number;
    qris: string;
    sourceId: string | null;
    acquirerReference: string | null;
  },
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
    // Only a sale names them; every row has both, so a created row equals the row read back, and rows of
    // one batched insert have the same columns.
    created_by_user_id: input.sale?.userId ?? null,
    description: input.sale?.description ?? null,
    // What was received is known once paid (settle-payment.ts).
    amount_paid: 0,
    underpaid: 0,
    overpaid: 0,
    refunded_amount: 0,
    refund_held: 0,
    refund_count: 0,
    // Null until a refund is told (migration 020); named so a created row equals the row read back.
    refund_notice_due: null,
    refund_notice_closed: null,
  };
}
