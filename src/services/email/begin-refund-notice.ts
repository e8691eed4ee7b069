import { closeRefundNotice, refundsOfNotice } from '../../storage/queries/refunds.js';
import type { RefundsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

/**
 * The refunds a notice to the payer tells of (`refunds:<due>` rows, issue 35), read once no refund can
 * join it any more: the notice is closed first, by an update of the transaction's row that waits for
 * any refund still joining it (storage/queries/refunds.ts), then its refunds are read in the same unit
 * of work. A later refund goes to the next notice, a window after this one. Again (a retry of the send)
 * reads the same refunds.
 */
export async function beginRefundNotice(deps: Deps, transactionId: string, due: number): Promise<RefundsTable[]> {
  return deps.db.runInTransaction(async (trx) => {
    await closeRefundNotice(trx, transactionId, due);
    return refundsOfNotice(trx, transactionId, due);
  });
}
