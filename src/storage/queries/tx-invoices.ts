import type { Tx } from '../executor.js';

/**
 * Skips the transaction's queued invoice e-mail (recording why), unless a mailer holds it at `now`: one
 * held is left to its mailer, which re-reads the status before sending.
 */
export async function skipQueuedInvoice(trx: Tx, transactionId: string, reason: string, now: number): Promise<void> {
  await trx
    .updateTable('emails')
    .set({ status: 'skipped', last_error: reason })
    .where('transaction_id', '=', transactionId)
    .where('kind', '=', 'invoice')
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .execute();
}
