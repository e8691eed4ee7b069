// The `source_notifications` table: what a phone source received and what each notification became.
import type { Executor, Tx } from '../executor.js';
import type { SourceNotificationsTable } from '../schema.js';

export async function insertSourceNotifications(trx: Tx, rows: readonly SourceNotificationsTable[]): Promise<void> {
  if (rows.length > 0)
    await trx
      .insertInto('source_notifications')
      .values([...rows])
      .execute();
}

/** Deletes a source's notifications beyond its latest `keep`; how many it deleted. */
export async function deleteSourceNotificationsBeyond(trx: Tx, sourceId: string, keep: number): Promise<number> {
  const deleted = await trx
    .deleteFrom('source_notifications')
    .where('source_id', '=', sourceId)
    .where('id', 'not in', (eb) =>
      eb
        .selectFrom('source_notifications')
        .select('id')
        .where('source_id', '=', sourceId)
        .orderBy('received_at', 'desc')
        .orderBy('id', 'desc')
        .limit(keep),
    )
    .executeTakeFirst();
  return Number(deleted.numDeletedRows);
}

/** A source's latest notifications, newest first. */
export async function latestNotificationsOfSource(
  db: Executor,
  sourceId: string,
  limit: number,
): Promise<SourceNotificationsTable[]> {
  return db
    .selectFrom('source_notifications')
    .selectAll()
    .where('source_id', '=', sourceId)
    .orderBy('received_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
