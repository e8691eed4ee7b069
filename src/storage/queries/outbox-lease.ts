import { sql } from 'kysely';
import type { Executor, Tx } from '../executor.js';
import type { DeliveriesTable, NotifyDeliveriesTable } from '../schema.js';

// The two outboxes, webhook deliveries and merchants' alerts, keep the same claim columns and move
// through the same states: a row is leased by one dispatcher at a time, and an attempt's outcome is
// recorded only by the holder of the lease. One pair of queries serves both tables.
export type LeasedOutbox = 'deliveries' | 'notify_deliveries';

type Status = DeliveriesTable['status'] & NotifyDeliveriesTable['status'];

/**
 * Claims a row until `lease` if it is still pending and unclaimed at `now` (the due query's condition,
 * re-checked atomically): of two dispatchers that both saw it free, only the first wins.
 */
export async function leaseOutboxRow(db: Executor, table: LeasedOutbox, id: string, now: number, lease: number): Promise<boolean> {
  const result = await db
    .updateTable(table)
    .set({ locked_until: lease })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Records an attempt's outcome on its row (attempts + 1, claim cleared) only while the row still carries
 * `lease`; false when another claim (a resend, an expired lease taken over) has it meanwhile. A null
 * `nextAttemptAt` leaves next_attempt_at as it is.
 */
export async function recordOutboxOutcome(
  trx: Tx,
  table: LeasedOutbox,
  id: string,
  lease: number,
  outcome: { status: Status; nextAttemptAt: number | null; attemptedAt: number; statusCode: number | null },
): Promise<boolean> {
  const updated = await trx
    .updateTable(table)
    .set({
      status: outcome.status,
      attempts: sql<number>`attempts + 1`,
      ...(outcome.nextAttemptAt === null ? {} : { next_attempt_at: outcome.nextAttemptAt }),
      locked_until: null,
      last_attempt_at: outcome.attemptedAt,
      last_status_code: outcome.statusCode,
    })
    .where('id', '=', id)
    .where('locked_until', '=', lease)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}
