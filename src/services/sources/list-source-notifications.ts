import { isoTime } from '../../domain/iso-time.js';
import { latestNotificationsOfSource } from '../../storage/queries/source-notifications.js';
import type { SourceNotificationsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

export interface NotificationView {
  received_at: string;
  app: string | null;
  title: string | null;
  text: string | null;
  outcome: SourceNotificationsTable['outcome'];
  reason: string | null;
  payment_id: string | null;
}

/**
 * The latest notifications of each of these sources, newest first. The ids come from a list already scoped
 * to the viewer (listVisibleSources), so this reads only sources the viewer may see.
 */
export async function listSourceNotifications(
  deps: Deps,
  sourceIds: readonly string[],
  limit = 20,
): Promise<Map<string, NotificationView[]>> {
  const lists = await Promise.all(sourceIds.map((id) => latestNotificationsOfSource(deps.db, id, limit)));
  return new Map(
    sourceIds.map((id, i) => [
      id,
      lists[i]!.map((row) => ({
        received_at: isoTime(row.received_at),
        app: row.app,
        title: row.title,
        text: row.text,
        outcome: row.outcome,
        reason: row.reason,
        payment_id: row.payment_id,
      })),
    ]),
  );
}
