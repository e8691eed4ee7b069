// The one place where something that happened becomes its deliveries: a webhook event goes to each of
// the merchant's endpoints that subscribes to its type, and to its alert channels when it is news for
// them (alert-of-event.ts says which); a notice that is not a webhook event (an endpoint turned
// failing) to the alert channels only. Called in the unit of work of the change itself, so the change
// and its deliveries commit or vanish together.
import { subscribes } from '../../domain/webhook-events.js';
import type { Executor } from '../../storage/executor.js';
import { insertDeliveries } from '../../storage/queries/deliveries.js';
import { enabledEndpointSubscriptions } from '../../storage/queries/webhook-endpoints.js';
import type { EventType } from '../../storage/schema.js';
import { alertFactsOfEvent } from '../notify/alert-of-event.js';
import { type AlertFactsOf, enqueueAlerts } from '../notify/enqueue-alerts.js';
import { newDelivery } from '../webhooks/new-delivery.js';
import type { OutboxWrites } from './outbox-writes.js';

export type Happening =
  /** A webhook event, stored already (services/webhooks/enqueue-event.ts). */
  | { event: { id: string; type: EventType; data: unknown }; merchantId: string; now: number }
  /** News for the merchant's alert channels only. */
  | { notice: AlertFactsOf; merchantId: string; now: number };

/** With `writes`, the rows are gathered there for the end of the unit of work (outbox-writes.ts). */
export async function fanOut(db: Executor, happening: Happening, writes?: OutboxWrites): Promise<void> {
  const { merchantId, now } = happening;
  if ('notice' in happening) {
    await enqueueAlerts(db, { merchantId, eventId: null, facts: happening.notice, now }, writes);
    return;
  }
  const { event } = happening;
  const facts = alertFactsOfEvent({ ...event, merchantId, now });
  if (facts !== null) await enqueueAlerts(db, { merchantId, eventId: event.id, facts, now }, writes);
  const endpoints = await (writes ? writes.endpointsOf(db, merchantId) : enabledEndpointSubscriptions(db, merchantId));
  const subscribed = endpoints.filter((e) => subscribes(e.events, event.type));
  if (subscribed.length === 0) return;
  const rows = subscribed.map((e) => newDelivery(event.id, e.id, now));
  if (writes) writes.deliveries.push(...rows);
  else await insertDeliveries(db, rows);
}
