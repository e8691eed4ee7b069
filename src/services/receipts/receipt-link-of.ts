import type { Viewer } from '../../domain/viewer.js';
import { receiptTokenOf } from '../../storage/queries/receipts.js';
import type { Deps } from '../deps.js';
import { getVisibleTransaction } from '../transactions/get-visible-transaction.js';

/** The token of a visible transaction's receipt link, or null while none was made. */
export async function receiptLinkOf(deps: Deps, viewer: Viewer, trxid: string): Promise<string | null> {
  const tx = await getVisibleTransaction(deps, viewer, trxid);
  return (await receiptTokenOf(deps.db, tx.id)) ?? null;
}
