// Writes a merchant's alerts: one pending row per active channel, in the caller's unit of work, so the
// alert commits or vanishes with the change it reports (as webhook events do). A merchant without
// channels costs one indexed read.
import type { AlertFacts } from '../../domain/notify-facts.js';
import type { Executor } from '../../storage/executor.js';
import { activeNotifyChannelIds, insertNotifyDeliveries, merchantNameOf } from '../../storage/queries/notify.js';
import type { OutboxWrites } from '../outbox/outbox-writes.js';
import { newAlertRow } from './new-alert-row.js';

type WithoutName<T> = T extends unknown ? Omit<T, 'merchantName'> : never;

/** The facts of an alert; the merchant's name is filled in here. */
export type AlertFactsOf = WithoutName<AlertFacts>;

/**
 * Queues the alert to every active channel of the merchant; how many were queued. With `writes`, the
 * rows are gathered there for the end of the unit of work (outbox/outbox-writes.ts).
 */
export async function enqueueAlerts(
  db: Executor,
  alert: { merchantId: string; eventId: string | null; facts: AlertFactsOf; now: number },
  writes?: OutboxWrites,
): Promise<number> {
  const channels = await (writes
    ? writes.channelsOf(db, alert.merchantId)
    : activeNotifyChannelIds(db, alert.merchantId));
  if (channels.length === 0) return 0;
  const name = await (writes ? writes.nameOf(db, alert.merchantId) : merchantNameOf(db, alert.merchantId));
  const facts = { ...alert.facts, merchantName: name ?? alert.merchantId } as AlertFacts;
  const rows = channels.map((id) => newAlertRow(id, alert.merchantId, facts, alert.eventId, alert.now));
  if (writes) writes.alerts.push(...rows);
  else await insertNotifyDeliveries(db, rows);
  return channels.length;
}
