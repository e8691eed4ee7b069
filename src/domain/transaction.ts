import type { Mode, PaymentsTable, RefundsTable, TransactionStatus, TransactionsTable } from './records.js';
import { isoTime, isoTimeOrNull } from './iso-time.js';
import { presentRefund, type RefundView, type TransactionRefundStatus, transactionRefundStatus } from './refund.js';

/**
 * A pending transaction whose expiry has passed is expired, whether or not the sweeper has written it
 * yet: readers must never see a stale `pending`.
 */
export function effectiveStatus(tx: Pick<TransactionsTable, 'status' | 'expires_at'>, now: number): TransactionStatus {
  return tx.status === 'pending' && tx.expires_at <= now ? 'expired' : tx.status;
}

export interface PaymentDetails {
  id: string;
  source: string;
  amount: number;
  paid_at: string;
  reference: string | null;
  issuer: string | null;
  payer_name: string | null;
}

export interface TransactionView {
  trxid: string;
  status: TransactionStatus;
  mode: Mode;
  amount: number;
  unique_code: number;
  total_amount: number;
  currency: string;
  email: string | null;
  ref: string | null;
  qris: string;
  qr_image_url: string;
  qr_image_svg_url: string;
  qr_image?: string;
  checkout_url: string;
  created_at: string;
  expires_at: string;
  paid_at: string | null;
  paid_late: boolean;
  /** Set by a cancel; kept when money arrives afterwards and the transaction turns paid (late). */
  cancelled_at: string | null;
  /** What it received (rupiah); 0 until paid. */
  amount_paid: number;
  /** By how much an accepted payment fell short of or went over the total; 0 when none. */
  underpaid: number;
  overpaid: number;
  /** The sum of its succeeded refunds (rupiah); 0 when none. */
  refunded_amount: number;
  /** none, partial or full: how much of what it received its succeeded refunds gave back. */
  refund_status: TransactionRefundStatus;
  /** Its refunds of any status, oldest first. */
  refunds: RefundView[];
  payment: PaymentDetails | null;
}

/**
 * What a cancel request does to a transaction as it stands now. Only a pending one is cancelled; a
 * cancelled one answers as it is (cancel is idempotent); paid and expired ones refuse.
 */
export function cancelDecision(
  tx: Pick<TransactionsTable, 'status' | 'expires_at'>,
  now: number,
): 'cancel' | 'already_cancelled' | 'paid' | 'expired' {
  const status = effectiveStatus(tx, now);
  if (status === 'pending') return 'cancel';
  if (status === 'cancelled') return 'already_cancelled';
  return status;
}

export function transactionUrls(baseUrl: string, trxid: string) {
  return {
    png: `${baseUrl}/api/payment-gateway/qr/${trxid}.png`,
    svg: `${baseUrl}/api/payment-gateway/qr/${trxid}.svg`,
    checkout: `${baseUrl}/checkout/${trxid}`,
  };
}

/**
 * The transaction as the API answers it. `refunds` are its refund rows, oldest first: callers read them
 * only when `refund_count > 0` (nearly never), so the hot status read stays one row.
 */
export function presentTransaction(
  tx: TransactionsTable,
  payment: PaymentsTable | null,
  now: number,
  baseUrl: string,
  refunds: readonly RefundsTable[] = [],
): TransactionView {
  const urls = transactionUrls(baseUrl, tx.id);
  return {
    trxid: tx.id,
    status: effectiveStatus(tx, now),
    mode: tx.mode,
    amount: tx.amount,
    unique_code: tx.unique_code,
    total_amount: tx.total_amount,
    currency: tx.currency,
    email: tx.email,
    ref: tx.ref,
    qris: tx.qris,
    qr_image_url: urls.png,
    qr_image_svg_url: urls.svg,
    checkout_url: urls.checkout,
    created_at: isoTime(tx.created_at),
    expires_at: isoTime(tx.expires_at),
    paid_at: isoTimeOrNull(tx.paid_at),
    paid_late: tx.paid_late === 1,
    cancelled_at: isoTimeOrNull(tx.cancelled_at),
    amount_paid: tx.amount_paid ?? 0,
    underpaid: tx.underpaid ?? 0,
    overpaid: tx.overpaid ?? 0,
    refunded_amount: tx.refunded_amount ?? 0,
    refund_status: transactionRefundStatus(tx),
    refunds: refunds.map(presentRefund),
    payment:
      payment === null
        ? null
        : {
            id: payment.id,
            source: payment.source,
            amount: payment.amount,
            paid_at: isoTime(payment.paid_at),
            reference: payment.reference,
            issuer: payment.issuer,
            payer_name: payment.payer_name,
          },
  };
}
