import { AppError } from '../../domain/errors.js';
import { readScopedTransaction } from '../../storage/queries/transactions.js';
import type { TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { isCashier, merchantScope, type Viewer } from '../../domain/viewer.js';
import { wibDayStart } from '../../domain/wib.js';

const TRXID = /^trx_[0-9A-Za-z]{1,64}$/;

/**
 * A transaction the console's viewer may see. A malformed id, an unknown one and another merchant's
 * are the same `transaction_not_found`, so ids cannot be probed across merchants.
 */
export async function getVisibleTransaction(deps: Deps, viewer: Viewer, trxid: string): Promise<TransactionsTable> {
  const found = TRXID.test(trxid) ? await readScopedTransaction(deps.db, merchantScope(viewer), trxid) : undefined;
  // A cashier sees its merchants' transactions of today (WIB) only; an older one is as unknown as any.
  const hidden = found !== undefined && isCashier(viewer) && found.created_at < wibDayStart(deps.now());
  if (!found || hidden) throw new AppError('transaction_not_found', 'no such transaction', { param: 'trxid' });
  return found;
}
