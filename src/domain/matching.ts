// Which transaction, if any, a reported payment pays. Pure: the caller fetches the candidates and
// applies the decision in one database transaction (where the conditional update is what finally makes
// "paid at most once" hold when two reports race).
import type { TransactionStatus } from './records.js';

export interface MatchCandidate {
  id: string;
  status: TransactionStatus;
  total_amount: number;
  created_at: number;
  expires_at: number;
  acquirer_reference: string | null;
  /** What it received so far: more than 0 on a transaction a person kept open after a part payment. */
  amount_paid?: number;
}

export interface PaymentFacts {
  amount: number;
  paidAt: number;
  /** A transaction the report names itself (simulator, operator confirmation). */
  trxid?: string | null;
  /** The source's reference: may be our trxid or the acquirer's reference for the code. */
  reference?: string | null;
  /**
   * A person's confirmation of the rest of a transaction kept open after a part payment: a named
   * transaction that received a part is paid by exactly what is still due (never by a feed's report).
   */
  confirmsRest?: boolean;
}

export const UNMATCHED_REASONS = [
  'no_matching_transaction',
  'amount_mismatch',
  'transaction_already_paid',
  'paid_before_creation',
  'ambiguous_amount',
  // The merchant is disabled (by an operator, or when its last user deleted the account): its reports are
  // kept, but none marks its transactions paid. An operator can still assign one.
  'merchant_disabled',
] as const;
export type UnmatchedReason = (typeof UNMATCHED_REASONS)[number];

export type MatchDecision<T extends MatchCandidate> =
  | { outcome: 'matched'; transaction: T; by: 'trxid' | 'reference' | 'amount'; late: boolean }
  | { outcome: 'unmatched'; reason: UnmatchedReason; transaction: T | null };

export interface MatchInput<T extends MatchCandidate> {
  payment: PaymentFacts;
  /** The merchant's transactions (same mode) whose id is the trxid or reference, or whose acquirer reference is the reference. */
  named: readonly T[];
  /** The merchant's transactions (same mode) that still hold a reservation of the payment's amount. */
  byAmount: readonly T[];
  now: number;
  /** A payment dated this much before a transaction's creation may still pay it (clocks disagree). */
  clockSkewMs: number;
}

export function decideMatch<T extends MatchCandidate>(input: MatchInput<T>): MatchDecision<T> {
  const { payment, now } = input;
  const named = pickNamed(input.named, payment);
  if (named !== null) {
    // A reference identifies the transaction outright, so the time window does not apply; a wrong
    // amount is still never accepted as payment of it.
    if (payment.confirmsRest === true && named.tx.status !== 'paid' && partlyPaid(named.tx)) {
      if (named.tx.total_amount - (named.tx.amount_paid ?? 0) !== payment.amount)
        return { outcome: 'unmatched', reason: 'amount_mismatch', transaction: named.tx };
      return { outcome: 'matched', transaction: named.tx, by: named.by, late: isLate(named.tx, payment.paidAt, now) };
    }
    if (named.tx.total_amount !== payment.amount)
      return { outcome: 'unmatched', reason: 'amount_mismatch', transaction: named.tx };
    if (named.tx.status === 'paid')
      return { outcome: 'unmatched', reason: 'transaction_already_paid', transaction: named.tx };
    if (partlyPaid(named.tx)) return { outcome: 'unmatched', reason: 'amount_mismatch', transaction: named.tx };
    return { outcome: 'matched', transaction: named.tx, by: named.by, late: isLate(named.tx, payment.paidAt, now) };
  }

  const byAmount = unique(input.byAmount.filter((tx) => tx.total_amount === payment.amount));
  if (byAmount.length === 0) return { outcome: 'unmatched', reason: 'no_matching_transaction', transaction: null };
  // Reservations make a held total unique per merchant and mode; two candidates mean the caller's data
  // is inconsistent, and guessing would credit the wrong order.
  if (byAmount.length > 1) return { outcome: 'unmatched', reason: 'ambiguous_amount', transaction: null };
  const tx = byAmount[0]!;
  // A total is reused once its reservation lapses: a payment dated before this transaction existed was
  // meant for an earlier holder of the same total.
  if (payment.paidAt < tx.created_at - input.clockSkewMs)
    return { outcome: 'unmatched', reason: 'paid_before_creation', transaction: tx };
  if (tx.status === 'paid') return { outcome: 'unmatched', reason: 'transaction_already_paid', transaction: tx };
  if (partlyPaid(tx)) return { outcome: 'unmatched', reason: 'amount_mismatch', transaction: tx };
  return { outcome: 'matched', transaction: tx, by: 'amount', late: isLate(tx, payment.paidAt, now) };
}

/**
 * A transaction kept open after a part payment is owed less than its total: the whole total would now
 * overpay it, which only a person may accept (an assign), so the matcher, exact by rule, leaves it.
 */
function partlyPaid(tx: MatchCandidate): boolean {
  return (tx.amount_paid ?? 0) > 0;
}

/**
 * Late means the merchant may already have been told (or could have read) that the transaction was
 * over: it was expired or cancelled, or the payment was made or learned of at or after expiry. The
 * boundary matches effectiveStatus, which reads a transaction as expired from expires_at on.
 */
export function isLate(tx: Pick<MatchCandidate, 'status' | 'expires_at'>, paidAt: number, now: number): boolean {
  return tx.status !== 'pending' || paidAt >= tx.expires_at || now >= tx.expires_at;
}

function pickNamed<T extends MatchCandidate>(
  candidates: readonly T[],
  payment: PaymentFacts,
): { tx: T; by: 'trxid' | 'reference' } | null {
  const trxid = payment.trxid ?? null;
  const reference = payment.reference ?? null;
  if (trxid !== null) {
    const tx = candidates.find((c) => c.id === trxid);
    if (tx) return { tx, by: 'trxid' };
  }
  if (reference !== null && reference !== '') {
    const tx = candidates.find((c) => c.id === reference) ?? candidates.find((c) => c.acquirer_reference === reference);
    if (tx) return { tx, by: 'reference' };
  }
  return null;
}

function unique<T extends MatchCandidate>(list: readonly T[]): T[] {
  const seen = new Set<string>();
  return list.filter((tx) => {
    if (seen.has(tx.id)) return false;
    seen.add(tx.id);
    return true;
  });
}
