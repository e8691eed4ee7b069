import type { PaymentsTable, RefundsTable, TransactionsTable } from '../../storage/schema.js';

/** A transaction with the payment that paid it, as the API and the console show them. */
export interface TransactionWithPayment {
  transaction: TransactionsTable;
  payment: PaymentsTable | null;
  /** Its refunds, oldest first, where the reader asked for them (the API's reads do; empty when it has none). */
  refunds?: RefundsTable[];
}
