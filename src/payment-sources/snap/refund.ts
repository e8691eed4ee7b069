// Refunding a paid acquirer-issued code: the acquirer moves the money back (qr-mpm-refund, service 78).
// Never inside a database transaction (it waits on the network).
import { AppError } from '../../domain/errors.js';
import type { Deps, IssuerRefund, IssuerRefundOutcome } from '../../services/deps.js';
import type { TransactionsTable } from '../../storage/schema.js';
import { SnapClient } from './client.js';
import type { SnapSource } from './config.js';
import { refundOutcome } from './refund-answer.js';

/**
 * Asks the acquirer to refund `refund.amount` of the paid transaction `tx`. The refund's id is the
 * partnerRefundNo, so asking again with the same refund (after "in progress", a timeout, a 5xx) is how
 * its final answer is learned, and never refunds twice. Throws acquirer_unavailable when the acquirer
 * did not answer (the refund may or may not have happened), acquirer_error when its answer was about
 * another payment; refusals are outcomes (refund-answer.ts).
 */
export async function refundAtAcquirer(
  deps: Deps,
  source: SnapSource,
  tx: TransactionsTable,
  refund: IssuerRefund,
): Promise<IssuerRefundOutcome> {
  if (tx.acquirer_reference === null)
    throw new AppError('acquirer_error', `transaction ${tx.id} has no acquirer reference to refund`);
  const answer = await new SnapClient(source, deps).refund({
    partnerReferenceNo: tx.id,
    referenceNo: tx.acquirer_reference,
    partnerRefundNo: refund.id,
    amount: refund.amount,
    reason: refund.reason,
  });
  return refundOutcome(answer, { referenceNo: tx.acquirer_reference }, deps.now());
}
