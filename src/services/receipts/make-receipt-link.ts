import { AppError } from '../../domain/errors.js';
import { newReceiptToken } from '../../domain/ids.js';
import type { Viewer } from '../../domain/viewer.js';
import { insertReceiptTokenIfAbsent } from '../../storage/queries/receipts.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { getVisibleTransaction } from '../transactions/get-visible-transaction.js';

/**
 * Makes the public link to a paid transaction's receipt (issue 27, section 5), or returns the one it
 * has: a random token, so the link gives away neither the transaction id nor any other receipt. Another
 * merchant's transaction is transaction_not_found; one not paid yet has no receipt (not_found, as its
 * public link would be).
 */
export async function makeReceiptLink(deps: Deps, viewer: Viewer, trxid: string): Promise<string> {
  const tx = await getVisibleTransaction(deps, viewer, trxid);
  if (tx.status !== 'paid')
    throw new AppError('not_found', 'a transaction that is not paid has no receipt', { param: 'trxid' });
  const now = deps.now();
  return deps.db.runInTransaction(async (trx) => {
    const { token, created } = await insertReceiptTokenIfAbsent(trx, tx.id, newReceiptToken(), now);
    // Asked again, the link is the same one: nothing new to record.
    if (created)
      await writeAudit(trx, {
        actor: viewer.actor,
        action: 'receipt.link',
        subjectType: 'transaction',
        subjectId: tx.id,
        details: null,
        now,
      });
    return token;
  });
}
