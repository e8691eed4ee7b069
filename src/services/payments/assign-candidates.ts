import { unpaidTransactionsOfTotal } from '../../storage/queries/payment-review.js';
import type { PaymentsTable, TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

/** Candidates shown per unmatched payment: more than a few means the operator must look at amounts anyway. */
const MAX_CANDIDATES = 10;
/**
 * A transaction created this long after the payment's reported time is still a candidate: a feed's or a
 * bank's clock may run behind ours (at least MATCH_CLOCK_SKEW_SECONDS).
 */
const CREATED_AFTER_PAYMENT_MS = 10 * 60_000;

/**
 * The transactions an unmatched payment could belong to: the same merchant, mode and total, not paid,
 * created within the longest lifetime a transaction may have before the payment's time (and a little
 * after it), and still holding their total when the payment was made: pending, or ended (expired or
 * cancelled) no longer than the reservation grace before it. A transaction kept open after a part
 * payment is a candidate of a payment of exactly its rest, whenever it ended. A pending transaction whose
 * price is the payment (the payer left out the unique code) or whose total is within the unique codes'
 * range of it is one too. Nearest first: an exact total or rest, then by how far the total is.
 */
export async function assignCandidates(
  deps: Deps,
  payment: Pick<PaymentsTable, 'merchant_id' | 'mode' | 'amount' | 'paid_at'>,
): Promise<TransactionsTable[]> {
  const grace = deps.config.reservationGraceSeconds * 1000;
  const skew = deps.config.matchClockSkewSeconds * 1000;
  return unpaidTransactionsOfTotal(deps.db, {
    merchantId: payment.merchant_id,
    mode: payment.mode,
    amount: payment.amount,
    near: deps.config.uniqueCodeMax,
    createdFrom: payment.paid_at - deps.config.expiresInMaxSeconds * 1000 - grace - skew,
    createdTo: payment.paid_at + Math.max(skew, CREATED_AFTER_PAYMENT_MS),
    endedAfter: payment.paid_at - grace,
    limit: MAX_CANDIDATES,
  });
}
