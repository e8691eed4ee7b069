import { AppError } from '../../domain/errors.js';
import { readScopedTransaction } from '../../storage/queries/transactions.js';
import type { TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from '../../domain/viewer.js';

const TRXID = /^trx_[0-9A-Za-z]{1,64}$/;

/**
 * A transaction the console's viewer may see. A malformed id, an unknown one and another merchant's
 * are the same `transaction_not_found`, so ids cannot be probed across merchants.
 */
export async function getVisibleTransaction(deps: Deps, viewer: Viewer, trxid: string): Promise<TransactionsTable> {
  const found = TRXID.test(trxid) ? await readScopedTransaction(deps.db, merchantScope(viewer), trxid) : undefined;
  if (!found) throw new AppError('transaction_not_found', 'no such transaction', { param: 'trxid' });
  return found;
}
