import type { Deps } from '../../src/services/deps.js';
import type { RefundStatus } from '../../src/storage/schema.js';

let counter = 0;

/**
 * A refund row as the refund service would leave it (that service is another branch's): for reports'
 * tests, which only read refunds. It does not touch the transaction's running sums.
 */
export async function insertRefundRow(
  deps: Deps,
  row: {
    transactionId: string;
    merchantId: string;
    amount: number;
    status: RefundStatus;
    createdAt: number;
    completedAt: number | null;
    mode?: 'live' | 'test';
  },
): Promise<string> {
  const id = `rf_test${++counter}_${Math.random().toString(36).slice(2, 8)}`;
  await deps.db
    .insertInto('refunds')
    .values({
      id,
      transaction_id: row.transactionId,
      merchant_id: row.merchantId,
      mode: row.mode ?? 'live',
      amount: row.amount,
      reason: 'test',
      status: row.status,
      recorded: 0,
      reference: null,
      payment_id: null,
      requested_by: 'cli',
      idempotency_key: null,
      request_hash: null,
      error_code: row.status === 'failed' ? 'refund_refused' : null,
      error_message: null,
      attempts: 1,
      next_attempt_at: null,
      created_at: row.createdAt,
      updated_at: row.completedAt ?? row.createdAt,
      completed_at: row.completedAt,
    })
    .execute();
  return id;
}
