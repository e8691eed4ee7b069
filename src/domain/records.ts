// The stored records the domain's rules read: a transaction and a payment, exactly as the database holds
// them (storage/schema.ts declares its tables with these). Times are integer milliseconds since the epoch
// and booleans 0/1 integers in both databases.
export type Mode = 'test' | 'live';
export type TransactionStatus = 'pending' | 'paid' | 'expired' | 'cancelled';
export type PaymentStatus = 'matched' | 'unmatched';
/**
 * A console user's role: an operator sees every merchant, a merchant user (a merchant's owner) its own,
 * and a cashier sells at the counter for its merchants and sees little else (domain/viewer.ts).
 */
export type UserRole = 'operator' | 'merchant' | 'cashier';
/** What a webhook event reports. */
export type EventType =
  | 'transaction.paid'
  | 'transaction.expired'
  | 'transaction.cancelled'
  | 'payment.unmatched'
  | 'refund.succeeded'
  | 'refund.failed';

export interface TransactionsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  status: TransactionStatus;
  amount: number;
  unique_code: number;
  total_amount: number;
  currency: string;
  email: string | null;
  ref: string | null;
  qris: string;
  created_at: number;
  expires_at: number;
  paid_at: number | null;
  paid_late: number;
  payment_id: string | null;
  updated_at: number;
  /** The payment source that issued this code (acquirer-issued SNAP codes), else null. */
  source_id: string | null;
  /** The acquirer's reference for an acquirer-issued code (SNAP referenceNo). */
  acquirer_reference: string | null;
  /** When it was cancelled; kept if a late payment then marks it paid (migration 006). */
  cancelled_at: number | null;
  /**
   * The cashier whose point-of-sale charge made it, and the sale's note (migration 015). Absent or null
   * for the API's and payment links' creates, which never name them, so their inserts are unchanged.
   */
  created_by_user_id?: string | null;
  description?: string | null;
  /**
   * What a paid transaction received, and by how much that fell short of or went over its total when a
   * person accepted a payment of another amount (migration 017); all 0 until paid. Optional so creates
   * need not name them (the database's default is 0).
   */
  amount_paid?: number;
  underpaid?: number;
  overpaid?: number;
  /**
   * The sum of its succeeded refunds, and of its refunds still pending at an acquirer (migration 018);
   * refunded_amount + refund_held never exceeds amount_paid. Optional so creates need not name them.
   */
  refunded_amount?: number;
  refund_held?: number;
  /** How many refunds it has had, of any status: 0 means there are none to read. */
  refund_count?: number;
  /**
   * When its latest refund notice to the payer is due, and the due time of the latest one a mailer has
   * begun (migration 020: a notice is open while closed < due). Null until it has one.
   */
  refund_notice_due?: number | null;
  refund_notice_closed?: number | null;
}

export type RefundStatus = 'pending' | 'succeeded' | 'failed';

/** One refund asked for (migration 018, storage/migrations/018-refunds.ts says what each column means). */
export interface RefundsTable {
  id: string;
  transaction_id: string;
  merchant_id: string;
  mode: Mode;
  amount: number;
  reason: string;
  status: RefundStatus;
  /** 1: recorded as paid back outside the gateway (a static-QRIS code); 0: asked of the acquirer. */
  recorded: number;
  reference: string | null;
  payment_id: string | null;
  requested_by: string;
  idempotency_key: string | null;
  request_hash: string | null;
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  next_attempt_at: number | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
  /** The due time of the payer's notice that tells of it (migration 020); null or absent: none. */
  notice_due?: number | null;
}

export interface PaymentsTable {
  id: string;
  merchant_id: string;
  mode: Mode;
  source: string;
  source_payment_id: string;
  amount: number;
  paid_at: number;
  received_at: number;
  reference: string | null;
  payer_name: string | null;
  issuer: string | null;
  status: PaymentStatus;
  reason: string | null;
  transaction_id: string | null;
  /** For an unmatched payment, the transaction the matcher compared it with and refused (why is `reason`). */
  compared_transaction_id: string | null;
  raw: string | null;
}
