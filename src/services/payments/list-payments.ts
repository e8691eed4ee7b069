import type { Deps } from '../deps.js';
import type { PaymentStatus, PaymentsTable } from '../../storage/schema.js';

export interface ListPaymentsInput {
  status?: PaymentStatus;
  merchantId?: string;
  limit?: number;
}

/** Reported payments, newest first (operators look for the unmatched ones). */
export async function listPayments(deps: Deps, input: ListPaymentsInput = {}): Promise<PaymentsTable[]> {
  let query = deps.db.selectFrom('payments').selectAll();
  if (input.status) query = query.where('status', '=', input.status);
  if (input.merchantId) query = query.where('merchant_id', '=', input.merchantId);
  return query
    .orderBy('received_at', 'desc')
    .orderBy('id', 'desc')
    .limit(input.limit ?? 100)
    .execute();
}
