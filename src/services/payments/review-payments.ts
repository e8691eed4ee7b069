import type { Mode, PaymentsTable, TransactionsTable } from '../../storage/schema.js';
import { paymentPage, type PaymentListFilter, type PaymentListRow } from '../../storage/queries/payment-review.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from '../../domain/viewer.js';
import { assignCandidates } from './assign-candidates.js';

export const PAYMENTS_PER_PAGE = 25;

export interface PaymentsFilter {
  /** One status, or 'double' (double payments, refunded or not). */
  status: PaymentListFilter;
  mode: Mode | null;
  /** The cursor of the previous page's last row (see paymentsCursor), or null for the newest. */
  cursor: string | null;
}

export interface PaymentsReview {
  payments: PaymentListRow[];
  /** For each unmatched payment not refunded on the page, the transactions it could belong to (newest first). */
  candidates: Map<string, TransactionsTable[]>;
  /** The cursor of the next (older) page, or null when this is the last. */
  next: string | null;
}

/** Where a page ends: received_at and id of its last row, as one URL-safe token. */
function paymentsCursor(row: Pick<PaymentsTable, 'received_at' | 'id'>): string {
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
  // A refunded payment pays nothing any more: no candidates to look for.
  const unmatched = payments.filter((p) => p.status === 'unmatched' && p.refund_id === null);
  const found = await Promise.all(unmatched.map((p) => assignCandidates(deps, p)));
  return {
    payments,
    candidates: new Map(unmatched.map((p, i) => [p.id, found[i]!])),
    next: rows.length > PAYMENTS_PER_PAGE ? paymentsCursor(payments[payments.length - 1]!) : null,
  };
}
