import type { Deps } from '../deps.js';
import type { PaymentStatus, PaymentsTable } from '../../storage/schema.js';
import { listPaymentRows } from '../../storage/queries/payments.js';

export interface ListPaymentsInput {
  status?: PaymentStatus;
  merchantId?: string;
  limit?: number;
}

/** Reported payments, newest first (operators look for the unmatched ones). */
export async function listPayments(deps: Deps, input: ListPaymentsInput = {}): Promise<PaymentsTable[]> {
  return listPaymentRows(deps.db, { status: input.status, merchantId: input.merchantId, limit: input.limit ?? 100 });
}
