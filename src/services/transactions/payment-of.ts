import { loadPaymentById } from '../../storage/queries/transactions.js';
import type { PaymentsTable, TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

/** The payment that paid a transaction, through the batched read by id; null while unpaid. */
export async function paymentOf(deps: Deps, tx: TransactionsTable): Promise<PaymentsTable | null> {
  if (tx.payment_id === null) return null;
  return (await loadPaymentById(deps.db, tx.payment_id)) ?? null;
}
