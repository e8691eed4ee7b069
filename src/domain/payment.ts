import type { PaymentsTable } from './records.js';
import { isoTime } from './iso-time.js';

export interface PaymentView {
  id: string;
  status: 'matched' | 'unmatched';
  reason: string | null;
  source: string;
  source_payment_id: string;
  amount: number;
  paid_at: string;
  received_at: string;
  reference: string | null;
  issuer: string | null;
  payer_name: string | null;
  trxid: string | null;
  mode: string;
}

/** A reported payment as operators, the CLI and `payment.unmatched` webhooks see it. */
export function presentPayment(p: PaymentsTable): PaymentView {
  return {
    id: p.id,
    status: p.status,
    reason: p.reason,
    source: p.source,
    source_payment_id: p.source_payment_id,
    amount: p.amount,
    paid_at: isoTime(p.paid_at),
    received_at: isoTime(p.received_at),
    reference: p.reference,
    issuer: p.issuer,
    payer_name: p.payer_name,
    trxid: p.transaction_id,
    mode: p.mode,
  };
}

/**
 * A double payment: the matcher refused it because the transaction it pays was paid already (by
 * another payment), and kept it unmatched with that transaction beside it. Such a payment is refunded
 * (services/payments/refund-double-payment.ts); any other unmatched payment is assigned.
 */
export function isDoublePayment(p: Pick<PaymentsTable, 'status' | 'reason' | 'compared_transaction_id'>): boolean {
  return p.status === 'unmatched' && p.reason === 'transaction_already_paid' && p.compared_transaction_id !== null;
}
