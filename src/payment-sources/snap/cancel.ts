// Cancelling an acquirer-issued code: the acquirer is asked first (qr-mpm-cancel), because only it can
// stop a payer from paying the code. Never inside a database transaction (it waits on the network).
import { AppError } from '../../domain/errors.js';
import type { Deps } from '../../services/deps.js';
import type { TransactionsTable } from '../../storage/schema.js';
import { SnapClient } from './client.js';
import { outcomeOf, type SnapSource } from './config.js';
import { paymentFacts, recordSnapPayment } from './record.js';

/**
 * 'cancelled' once the acquirer has voided the code (or says it already was); 'paid' when the acquirer
 * refused because the payer had paid, in which case the payment is recorded here first. Providers word
 * that refusal differently, so a refusal is followed by a query, whose status decides. No answer from
 * the acquirer is an acquirer_unavailable and changes nothing.
 */
export async function cancelAcquirerCode(
  deps: Deps,
  source: SnapSource,
  tx: TransactionsTable,
): Promise<'cancelled' | 'paid'> {
  if (tx.acquirer_reference === null)
    throw new AppError('acquirer_error', `transaction ${tx.id} has no acquirer reference to void`);
  const client = new SnapClient(source, deps);
  const ids = { partnerReferenceNo: tx.id, referenceNo: tx.acquirer_reference };
  try {
    await client.cancel({ ...ids, reason: 'cancelled by the merchant' });
    return 'cancelled';
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'acquirer_error') throw err;
    const answer = await client.query(ids);
    const outcome = outcomeOf(source.config, answer.latestTransactionStatus);
    if (outcome === 'cancelled') return 'cancelled';
    if (outcome !== 'paid') throw err;
    await recordSnapPayment(deps, source, tx, paymentFacts(answer.body), { query: answer.body });
    return 'paid';
  }
}
