import type { Tx } from '../../storage/executor.js';
import { claimIdempotencyKey } from '../../storage/queries/idempotency.js';
import type { CreateTransactionInput } from './create-input.js';
import { idempotencyRow } from './idempotency-row.js';
import { LostRace } from './lost-race.js';

/**
 * Claims the create's Idempotency-Key for its transaction id; LostRace when another request holds it.
 * The static-QRIS paths (lone and batched) claim it before any reservation, so every create takes its
 * locks in one order, key then total (on PostgreSQL crossed orders could deadlock two racing retries).
 */
export async function claimKey(
  trx: Tx,
  input: CreateTransactionInput,
  transactionId: string,
  now: number,
): Promise<void> {
  const claimed = await claimIdempotencyKey(trx, idempotencyRow(input, transactionId, now));
  if (!claimed) throw new LostRace();
}
