import type { Mode, PaymentStatus, PaymentsTable, TransactionsTable } from '../../storage/schema.js';
import { paymentPage, unpaidTransactionsOfTotal, type PaymentListRow } from '../../storage/queries/payment-review.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from '../users/viewer.js';

export const PAYMENTS_PER_PAGE = 25;
/** Candidates shown per unmatched payment: more than a few means the operator must look at amounts anyway. */
const MAX_CANDIDATES = 10;
/**
 * A transaction created this long after the payment's reported time is still a candidate: a feed's or a
 * bank's clock may run behind ours (at least MATCH_CLOCK_SKEW_SECONDS).
 */
const CREATED_AFTER_PAYMENT_MS = 10 * 60_000;

export interface PaymentsFilter {
  status: PaymentStatus;
  mode: Mode | null;
  /** The cursor of the previous page's last row (see paymentsCursor), or null for the newest. */
  cursor: string | null;
}

export interface PaymentsReview {
  payments: PaymentListRow[];
  /** For each unmatched payment on the page, the transactions it could belong to (newest first). */
  candidates: Map<string, TransactionsTable[]>;
  /** The cursor of the next (older) page, or null when this is the last. */
  next: string | null;
}

/** Where a page ends: received_at and id of its last row, as one URL-safe token. */
export function paymentsCursor(row: Pick<PaymentsTable, 'received_at' | 'id'>): string {
  return `${row.received_at}.${row.id}`;
}

function parseCursor(cursor: string | null): { receivedAt: number; id: string } | null {
  const m = cursor === null ? null : /^([0-9]{1,16})\.(pay_[0-9A-Za-z]{1,64})$/.exec(cursor);
  return m ? { receivedAt: Number(m[1]), id: m[2]! } : null;
}

/**
 * A page of the payments the viewer may see, newest first, and for every unmatched one on it the
 * transactions an operator would assign it to. A malformed cursor is the first page.
 */
export async function reviewPayments(deps: Deps, viewer: Viewer, filter: PaymentsFilter): Promise<PaymentsReview> {
  const rows = await paymentPage(deps.db, {
    merchants: merchantScope(viewer),
    status: filter.status,
    mode: filter.mode,
    before: parseCursor(filter.cursor),
    limit: PAYMENTS_PER_PAGE + 1,
  });
  const payments = rows.slice(0, PAYMENTS_PER_PAGE);
  const unmatched = payments.filter((p) => p.status === 'unmatched');
  const found = await Promise.all(unmatched.map((p) => assignCandidates(deps, p)));
  return {
    payments,
    candidates: new Map(unmatched.map((p, i) => [p.id, found[i]!])),
    next: rows.length > PAYMENTS_PER_PAGE ? paymentsCursor(payments[payments.length - 1]!) : null,
  };
}

/**
 * The transactions an unmatched payment could belong to: the same merchant, mode and total, not paid,
 * created within the longest lifetime a transaction may have before the payment's time (and a little
 * after it), and still holding their total when the payment was made: pending, or ended (expired or
 * cancelled) no longer than the reservation grace before it.
 */
export async function assignCandidates(deps: Deps, payment: Pick<PaymentsTable, 'merchant_id' | 'mode' | 'amount' | 'paid_at'>): Promise<TransactionsTable[]> {
  const grace = deps.config.reservationGraceSeconds * 1000;
  const skew = deps.config.matchClockSkewSeconds * 1000;
  return unpaidTransactionsOfTotal(deps.db, {
    merchantId: payment.merchant_id,
    mode: payment.mode,
    amount: payment.amount,
    createdFrom: payment.paid_at - deps.config.expiresInMaxSeconds * 1000 - grace - skew,
    createdTo: payment.paid_at + Math.max(skew, CREATED_AFTER_PAYMENT_MS),
    endedAfter: payment.paid_at - grace,
    limit: MAX_CANDIDATES,
  });
}
