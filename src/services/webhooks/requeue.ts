import type { Tx } from '../../storage/executor.js';
import { requeueDeliveries } from '../../storage/queries/deliveries.js';

/** Puts deliveries back in the queue, due now, with a fresh retry schedule (resend-event.ts, resend-failed.ts). */
export async function requeue(trx: Tx, ids: string[], now: number): Promise<void> {
  // Clearing the claim means a send already in flight loses it: its result is recorded as an attempt
  // but no longer decides the delivery's state, and the resend goes out as asked.
  await requeueDeliveries(trx, ids, now);
}
