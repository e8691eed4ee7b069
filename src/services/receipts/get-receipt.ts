import { AppError } from '../../domain/errors.js';
import { isReceiptToken } from '../../domain/ids.js';
import { receiptByToken, type ReceiptRow } from '../../storage/queries/receipts.js';
import type { Deps } from '../deps.js';

/**
 * A receipt by its public link's token. An unknown token, a malformed one and a transaction that is not
 * paid are the same not_found, so a link tells nothing more than that it is not a receipt.
 */
export async function getReceipt(deps: Deps, token: string): Promise<ReceiptRow> {
  const found = isReceiptToken(token) ? await receiptByToken(deps.db, token) : undefined;
  if (found?.transaction.status !== 'paid' || found.transaction.paid_at === null) throw new AppError('not_found', 'no such receipt');
  return found;
}
