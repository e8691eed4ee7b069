import type { Deps } from '../deps.js';
import type { PaymentStatus, PaymentsTable } from '../../storage/schema.js';
import { listPaymentRows } from '../../storage/queries/payments.js';

export interface ListPaymentsInput {
  status?: PaymentStatus;
  /** Only double payments: unmatched because the transaction they pay was paid already. */
  double?: boolean;
  merchantId?: string;
  limit?: number;
}

/** Reported payments, newest first (operators look for the unmatched ones), with their refund's id. */
export async function listPayments(
  deps: Deps,
  input: ListPaymentsInput = {},
): Promise<(PaymentsTable & { refund_id: string | null })[]> {
  return listPaymentRows(deps.db, {
    status: input.status,
    double: input.double,
    merchantId: input.merchantId,
    limit: input.limit ?? 100,
  });
}
