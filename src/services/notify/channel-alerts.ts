import { attemptsOfNotifyDeliveries, notifyDeliveryPage } from '../../storage/queries/notify.js';
import type { NotifyAttemptsTable, NotifyChannelsTable, NotifyDeliveriesTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

export const ALERTS_PER_PAGE = 20;

export interface AlertWithAttempts extends NotifyDeliveriesTable {
  /** Oldest first. */
  attemptLog: NotifyAttemptsTable[];
}

/** A page of a channel's alerts, newest first, each with all its attempts; a malformed cursor is the first page. */
export async function channelAlerts(
  deps: Deps,
  channel: Pick<NotifyChannelsTable, 'id'>,
  cursor: string | null,
): Promise<{ alerts: AlertWithAttempts[]; next: string | null }> {
  const m = cursor === null ? null : /^([0-9]{1,16})\.(ndl_[0-9A-Za-z]{1,64})$/.exec(cursor);
  const before = m ? { createdAt: Number(m[1]), id: m[2]! } : null;
  const rows = await notifyDeliveryPage(deps.db, channel.id, before, ALERTS_PER_PAGE + 1);
  const page = rows.slice(0, ALERTS_PER_PAGE);
  const attempts = await attemptsOfNotifyDeliveries(
    deps.db,
    page.map((d) => d.id),
  );
  const byAlert = new Map<string, NotifyAttemptsTable[]>();
  for (const a of attempts) {
    const list = byAlert.get(a.delivery_id);
    if (list) list.push(a);
    else byAlert.set(a.delivery_id, [a]);
  }
  const last = page[page.length - 1];
  return {
    alerts: page.map((d) => ({ ...d, attemptLog: byAlert.get(d.id) ?? [] })),
    next: rows.length > ALERTS_PER_PAGE && last ? `${last.created_at}.${last.id}` : null,
  };
}
