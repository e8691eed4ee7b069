import { presentTransaction } from '../../domain/transaction.js';
import { deleteEndedReservations } from '../../storage/queries/reservations.js';
import { markPendingExpired, readDuePending } from '../../storage/queries/transactions.js';
import type { Deps } from '../deps.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';

/**
 * Moves pending transactions past their expiry to `expired`, a batch per database transaction, each
 * with its `transaction.expired` events. Readers already see them as expired; this makes it true in
 * storage. The conditional update means two sweepers (several instances) never expire a row twice.
 * Reservations whose grace period has ended are deleted so the table stays small.
 */
export async function expireDue(deps: Deps, batchSize = 200): Promise<number> {
  let total = 0;
  for (;;) {
    const now = deps.now();
    const expired = await deps.db.runInTransaction(async (trx) => {
      const due = await readDuePending(trx, now, batchSize);
      let count = 0;
      for (const tx of due) {
        if (!(await markPendingExpired(trx, tx.id, now))) continue;
        count += 1;
        const row = { ...tx, status: 'expired' as const, updated_at: now };
        await enqueueEvent(trx, deps.state.statusBus, {
          merchantId: tx.merchant_id,
          mode: tx.mode,
          type: 'transaction.expired',
          transactionId: tx.id,
          data: presentTransaction(row, null, now, deps.config.publicBaseUrl),
          now,
        });
      }
      return { count, more: due.length === batchSize };
    });
    total += expired.count;
    if (!expired.more) break;
    // On SQLite each batch holds the one connection synchronously: yield so requests waiting behind a
    // large backlog are served between batches instead of after the whole sweep.
    await new Promise((resolve) => setImmediate(resolve));
  }
  await deleteEndedReservations(deps.db, deps.now());
  return total;
}
