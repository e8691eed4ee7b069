// Which webhook events merchants also hear of on their alert channels, and what the alert says: a paid
// transaction and an unmatched payment. (An expiry or a cancel is the merchant's own doing or nobody's
// news.) Asked by the fan-out (outbox/fan-out.ts), inside the unit of work that writes the event.
import type { PaymentView } from '../../domain/payment.js';
import type { TransactionView } from '../../domain/transaction.js';
import type { EventType } from '../../storage/schema.js';
import type { AlertFactsOf } from './enqueue-alerts.js';

export interface AlertingEvent {
  id: string;
  merchantId: string;
  type: EventType;
  /** The event's data: the transaction as cstatus shows it, or the payment. */
  data: unknown;
  now: number;
}

const time = (iso: string | null | undefined, fallback: number): number => {
  const ms = iso ? Date.parse(iso) : Number.NaN;
  return Number.isNaN(ms) ? fallback : ms;
};

/** The alert an event makes, or null for an event that makes none. */
export function alertFactsOfEvent(event: AlertingEvent): AlertFactsOf | null {
  if (event.type === 'transaction.paid') {
    // A description is there when the transaction carries one (a point-of-sale note).
    const tx = event.data as TransactionView & { description?: string | null };
    return {
      kind: 'payment_received',
      mode: tx.mode,
      trxid: tx.trxid,
      amount: tx.payment?.amount ?? tx.total_amount,
      ref: tx.ref,
      description: tx.description ?? null,
      payerName: tx.payment?.payer_name ?? null,
      issuer: tx.payment?.issuer ?? null,
      paidAt: time(tx.paid_at ?? tx.payment?.paid_at, event.now),
    };
  }
  if (event.type === 'payment.unmatched') {
    const p = event.data as PaymentView;
    return {
      kind: 'payment_unmatched',
      mode: p.mode === 'live' ? 'live' : 'test',
      paymentId: p.id,
      amount: p.amount,
      reference: p.reference,
      payerName: p.payer_name,
      issuer: p.issuer,
      reason: p.reason,
      paidAt: time(p.paid_at, event.now),
    };
  }
  return null;
}
