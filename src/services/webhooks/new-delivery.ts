import { newDeliveryId } from '../../domain/ids.js';
import { pendingJob } from '../../storage/queries/outbox-jobs.js';
import type { DeliveriesTable } from '../../storage/schema.js';

/** A delivery as it starts: pending, due now, unclaimed, never attempted (also a resend to a new endpoint). */
export function newDelivery(eventId: string, endpointId: string, now: number): DeliveriesTable {
  return {
    id: newDeliveryId(),
    event_id: eventId,
    endpoint_id: endpointId,
    ...pendingJob(now),
    last_attempt_at: null,
    last_status_code: null,
  };
}
