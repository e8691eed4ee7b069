// Writes a merchant's alerts: one pending row per active channel, in the caller's unit of work, so the
// alert commits or vanishes with the change it reports (as webhook events do). A merchant without
// channels costs one indexed read.
import type { AlertFacts } from '../../domain/notify-facts.js';
import type { Executor } from '../../storage/executor.js';
import { activeNotifyChannelIds, insertNotifyDeliveries, merchantNameOf } from '../../storage/queries/notify.js';
import { newAlertRow } from './new-alert-row.js';

type WithoutName<T> = T extends unknown ? Omit<T, 'merchantName'> : never;

/** The facts of an alert; the merchant's name is filled in here. */
export type AlertFactsOf = WithoutName<AlertFacts>;

/** Queues the alert to every active channel of the merchant; how many were queued. */
export async function enqueueAlerts(
  db: Executor,
  alert: { merchantId: string; eventId: string | null; facts: AlertFactsOf; now: number },
): Promise<number> {
  const channels = await activeNotifyChannelIds(db, alert.merchantId);
  if (channels.length === 0) return 0;
  const merchantName = (await merchantNameOf(db, alert.merchantId)) ?? alert.merchantId;
  const facts = { ...alert.facts, merchantName } as AlertFacts;
  await insertNotifyDeliveries(
    db,
    channels.map((id) => newAlertRow(id, alert.merchantId, facts, alert.eventId, alert.now)),
  );
  return channels.length;
}
