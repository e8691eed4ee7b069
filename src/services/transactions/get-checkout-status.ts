import { effectiveStatus } from '../../domain/transaction.js';
import type { TransactionStatus } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { getTransactionById } from './get-transaction-by-id.js';

/** What a page without a live stream polls: the status alone, through the batched read by id. */
export async function getCheckoutStatus(
  deps: Deps,
  trxid: string,
): Promise<{ status: TransactionStatus; paid_late: boolean }> {
  const tx = await getTransactionById(deps, trxid);
  return { status: effectiveStatus(tx, deps.now()), paid_late: tx.paid_late === 1 };
}
