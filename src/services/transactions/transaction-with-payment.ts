import type { PaymentsTable, TransactionsTable } from '../../storage/schema.js';

/** A transaction with the payment that paid it, as the API and the console show them. */
export interface TransactionWithPayment {
  transaction: TransactionsTable;
  payment: PaymentsTable | null;
}
