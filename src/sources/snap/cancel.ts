// Cancelling an acquirer-issued code: the acquirer is asked first (qr-mpm-cancel), because only it can
// stop a payer from paying the code. Never inside a database transaction (it waits on the network).
import { AppError } from '../../domain/errors.js';
import type { Deps } from '../../services/deps.js';
import type { TransactionsTable } from '../../storage/schema.js';
import { SnapClient } from './client.js';
import { outcomeOf } from './config.js';
import { paymentFacts, recordSnapPayment } from './record.js';
import { snapSourceById } from './sources.js';

/**
 * 'cancelled' once the acquirer has voided the code (or says it already was); 'paid' when the acquirer
 * refused because the payer had paid, in which case the payment is recorded here first. Providers word
 * that refusal differently, so a refusal is followed by a query, whose status decides. No answer from
 * the acquirer is an acquirer_unavailable and changes nothing.
 */
export async function cancelAcquirerCode(deps: Deps, tx: TransactionsTable): Promise<'cancelled' | 'paid'> {
  const source = tx.source_id === null ? null : await snapSourceById(deps, tx.source_id);
  if (!source || tx.acquirer_reference === null) {
    throw new AppError('acquirer_error', 'the payment source that issued this code is gone or disabled, so its code cannot be voided');
  }
  const client = new SnapClient(source, deps.config.snapHttpTimeoutMs);
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
