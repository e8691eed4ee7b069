import { wibDay } from '../../domain/wib.js';
import type { PaidEventRow } from '../../storage/queries/payment-feed.js';

/** One paid transaction as the soundbox shows it. */
export interface FeedPayment {
  /** The outbox event that reported it (the feed's order). */
  eventId: string;
  trxid: string;
  mode: 'live' | 'test';
  /** What the payer paid: the total with its unique code. */
  amount: number;
  ref: string | null;
  /** When the gateway learned of it, and that time's WIB day (the day whose total it counts in). */
  recordedAt: number;
  day: number;
  paidAt: number;
  late: boolean;
  issuer: string | null;
}

export function feedPayment(row: PaidEventRow): FeedPayment {
  return {
    eventId: row.id,
    trxid: row.transaction_id,
    mode: row.mode,
    amount: row.total_amount,
    ref: row.ref,
    recordedAt: row.created_at,
    day: wibDay(row.created_at),
    paidAt: row.paid_at,
    late: row.paid_late === 1,
    issuer: row.issuer,
  };
}
