// Writes a merchant's alerts: one pending row per active channel, in the caller's unit of work, so the
// alert commits or vanishes with the change it reports (as webhook events do). A merchant without
// channels costs one indexed read.
import { newNotifyDeliveryId } from '../../domain/notify-channel.js';
import type { AlertFacts } from '../../domain/notify-facts.js';
import type { Executor } from '../../storage/executor.js';
import { activeNotifyChannelIds, insertNotifyDeliveries, merchantNameOf } from '../../storage/queries/notify.js';
import { pendingJob } from '../../storage/queries/outbox-jobs.js';
import type { NotifyDeliveriesTable } from '../../storage/schema.js';

type WithoutName<T> = T extends unknown ? Omit<T, 'merchantName'> : never;

/** The facts of an alert; the merchant's name is filled in here. */
export type AlertFactsOf = WithoutName<AlertFacts>;

/** A pending alert row to a channel, due now. */
export function newAlertRow(channelId: string, merchantId: string, facts: AlertFacts, eventId: string | null, now: number): NotifyDeliveriesTable {
  return {
    id: newNotifyDeliveryId(),
    channel_id: channelId,
    merchant_id: merchantId,
    kind: facts.kind,
    event_id: eventId,
    facts: JSON.stringify(facts),
    ...pendingJob(now),
    last_attempt_at: null,
    last_status_code: null,
  };
}

/** Queues the alert to every active channel of the merchant; how many were queued. */
export async function enqueueAlerts(db: Executor, alert: { merchantId: string; eventId: string | null; facts: AlertFactsOf; now: number }): Promise<number> {
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
