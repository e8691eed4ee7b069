import { newNotifyDeliveryId } from '../../domain/notify-channel.js';
import type { AlertFacts } from '../../domain/notify-facts.js';
import { pendingJob } from '../../storage/queries/outbox-jobs.js';
import type { NotifyDeliveriesTable } from '../../storage/schema.js';

/** A pending alert row to a channel, due now. */
export function newAlertRow(
  channelId: string,
  merchantId: string,
  facts: AlertFacts,
  eventId: string | null,
  now: number,
): NotifyDeliveriesTable {
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
