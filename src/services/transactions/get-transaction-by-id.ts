import { AppError } from '../../domain/errors.js';
import { loadTransactionById } from '../../storage/queries/transactions.js';
import type { TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

/** For the public QR image and checkout page: the transaction id itself is the capability. */
export async function getTransactionById(deps: Deps, trxid: string): Promise<TransactionsTable> {
  const transaction = await loadTransactionById(deps.db, trxid);
  if (!transaction) throw new AppError('transaction_not_found', `no transaction ${trxid}`, { param: 'trxid' });
  return transaction;
}
