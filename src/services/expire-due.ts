import type { Deps } from './deps.js';

/**
 * Moves pending transactions past their expiry to `expired`, a batch at a time so one sweep never
 * holds the database for long. Readers already see them as expired; this makes it true in storage.
 * Reservations whose grace period has ended are deleted so the table stays small.
 */
export async function expireDue(deps: Deps, batchSize = 500): Promise<number> {
  const now = deps.now();
  let total = 0;
  for (;;) {
    const due = await deps.db
      .selectFrom('transactions')
      .select('id')
      .where('status', '=', 'pending')
      .where('expires_at', '<=', now)
      .limit(batchSize)
      .execute();
    if (due.length === 0) break;
    const result = await deps.db
      .updateTable('transactions')
      .set({ status: 'expired', updated_at: now })
      .where('id', 'in', due.map((r) => r.id))
      .where('status', '=', 'pending')
      .executeTakeFirst();
    total += Number(result.numUpdatedRows);
    if (due.length < batchSize) break;
  }
  await deps.db.deleteFrom('reserved_totals').where('reserved_until', '<=', now).execute();
  return total;
}
