import { AppError } from '../../domain/errors.js';
import { posMayOpen, type Viewer } from '../../domain/viewer.js';
import type { TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { getVisibleTransaction } from '../transactions/get-visible-transaction.js';

/**
 * A transaction as the point of sale opens it (its sale screen, its cancel): one the viewer may see in
 * the console and, for a cashier, a sale it made itself (`posMayOpen`). Anything else is the same
 * `transaction_not_found` as an unknown id, so a cashier cannot tell another's sale from no sale.
 */
export async function getSale(deps: Deps, viewer: Viewer, trxid: string): Promise<TransactionsTable> {
  const tx = await getVisibleTransaction(deps, viewer, trxid);
  if (!posMayOpen(viewer, tx.created_by_user_id))
    throw new AppError('transaction_not_found', 'no such transaction', { param: 'trxid' });
  return tx;
}
