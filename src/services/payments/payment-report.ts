// What a payment source reports, and what recording it gives (record-payment.ts): types only, so the
// queue of reports (report-queue.ts, kept in the services' state) can name them without importing the step.
import type { UnmatchedReason } from '../../domain/matching.js';
import type { REPORTED_BY_ANOTHER_SOURCE } from '../../domain/payment.js';
import type { Mode, PaymentsTable, TransactionsTable } from '../../storage/schema.js';

export interface ReportedPayment {
  merchantId: string;
  mode: Mode;
  /** Which source saw it (simulator, manual, a source id, ...): with sourcePaymentId, the payment's identity. */
  source: string;
  sourcePaymentId: string;
  amount: number;
  paidAt: number;
  /** A transaction the report names directly (simulator, an operator's confirmation). */
  trxid?: string | null;
  /** The source's reference; matched against our trxid and the transaction's acquirer reference. */
  reference?: string | null;
  payerName?: string | null;
  issuer?: string | null;
  raw?: unknown;
  /** An operator's confirmation of the rest of a transaction kept open (confirm-payment.ts); see PaymentFacts. */
  confirmsRest?: boolean;
}

export type PaymentOutcome = 'matched' | 'unmatched' | 'duplicate';

export interface RecordPaymentResult {
  outcome: PaymentOutcome;
  payment: PaymentsTable;
  /** The paid transaction; for an unmatched payment the one it was compared with, if any. */
  transaction: TransactionsTable | null;
  /**
   * Why an unmatched payment matched nothing; `reported_by_another_source` for a report another source's
   * report of the same payment came before (a duplicate across sources, see corroborated); null otherwise.
   */
  reason: UnmatchedReason | typeof REPORTED_BY_ANOTHER_SOURCE | null;
}
