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
 * (services/refunds/refund-double-payment.ts); any other unmatched payment is assigned.
 */
export function isDoublePayment(p: Pick<PaymentsTable, 'status' | 'reason' | 'compared_transaction_id'>): boolean {
  return p.status === 'unmatched' && p.reason === 'transaction_already_paid' && p.compared_transaction_id !== null;
}

/** The reason of a report that another source's report of the same payment came before (isCorroboration). */
export const REPORTED_BY_ANOTHER_SOURCE = 'reported_by_another_source';

/**
 * Whether a report of an amount a transaction was paid already is a second source's report of a payment
 * already counted, rather than a payment of its own (a double payment to refund). A merchant may connect
 * several sources that see the same money (a phone's notifications and a bank-mutation service), each
 * reporting it minutes apart under its own id. Within one source, ids tell payments apart; across sources
 * only counting can: `others` are the reports of this transaction's amount (its payment, its earlier double
 * payments and corroborations) dated within the cross-source window of this one. This report is another
 * source's view of one of them when some other source has reported more of them than this report's own
 * source has; else it is one more payment. So with a payer who really paid twice, the phone's two
 * notifications and the bank's two mutations make one paid transaction, one corroboration and one double
 * payment, in whatever order they arrive.
 */
export function isCorroboration(source: string, others: ReadonlyArray<{ source: string }>): boolean {
  const counts = new Map<string, number>();
  for (const other of others) counts.set(other.source, (counts.get(other.source) ?? 0) + 1);
  const own = counts.get(source) ?? 0;
  for (const [other, count] of counts) if (other !== source && count > own) return true;
  return false;
}
