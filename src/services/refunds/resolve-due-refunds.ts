import { isAppError } from '../../domain/errors.js';
import { claimDueRefund, dueRefundIds } from '../../storage/queries/refunds.js';
import { readTransaction } from '../../storage/queries/transactions.js';
import type { Deps } from '../deps.js';
import { askAcquirerRefund } from './ask-acquirer-refund.js';
import { paymentOf } from '../transactions/payment-of.js';

// A claim holds a refund while its acquirer is asked; longer than any acquirer call may take.
const ASK_LEASE_MS = 120_000;

/**
 * Asks the acquirers again about the pending refunds that are due (an earlier answer was "in progress",
 * or there was none), with the same refund ids, until each is final. Safe in several processes at once:
 * each refund is claimed first (claimDueRefund). The number of refunds asked about.
 */
export async function resolveDueRefunds(deps: Deps, limit = 20): Promise<number> {
  const now = deps.now();
  let asked = 0;
  for (const id of await dueRefundIds(deps.db, now, limit)) {
    const refund = await claimDueRefund(deps.db, id, now, now + ASK_LEASE_MS);
    if (!refund) continue;
    try {
      const tx = await readTransaction(deps.db, refund.transaction_id);
      if (!tx) continue;
      const issuer = await deps.issuers.forTransaction(deps, tx);
      const { refund: after } = await askAcquirerRefund(deps, issuer, tx, await paymentOf(deps, tx), refund);
      if (after.status === 'pending' && after.attempts % 24 === 0) {
        // Money may have moved at the acquirer, so it is never failed for want of an answer: say so instead.
        deps.logger.warn(
          { refundId: after.id, attempts: after.attempts },
          'refund still has no final answer from the acquirer',
        );
      }
    } catch (err) {
      // The database away is the worker's to wait out (outage-backoff.ts), not this refund's.
      if (isAppError(err) && (err.code === 'database_unavailable' || err.code === 'storage_unavailable')) throw err;
      // One refund that cannot be asked (its source disabled meanwhile, a fault) must not hold up the
      // others of the round; its claim runs out and it is asked again then.
      deps.logger.warn(
        { err, refundId: refund.id },
        'could not ask the acquirer about a pending refund; asked again once its claim runs out',
      );
      continue;
    }
    asked++;
  }
  return asked;
}
