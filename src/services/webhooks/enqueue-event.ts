import { newEventId } from '../../domain/ids.js';
import { subscribes } from '../../domain/webhook-events.js';
import type { Executor } from '../../storage/executor.js';
import { insertDeliveries } from '../../storage/queries/deliveries.js';
import { insertEvent } from '../../storage/queries/outbox.js';
import { enabledEndpointSubscriptions } from '../../storage/queries/webhook-endpoints.js';
import type { EventType, Mode } from '../../storage/schema.js';
import type { StatusBus } from '../transactions/status-bus.js';
import { enqueueEventAlerts } from '../notify/alert-of-event.js';
import { newDelivery } from './new-delivery.js';

export interface NewEvent {
  merchantId: string;
  mode: Mode;
  type: EventType;
  transactionId?: string | null;
  paymentId?: string | null;
  /** The event's `data`: for transaction events, the transaction exactly as cstatus returns it. */
  data: unknown;
  now: number;
}

/**
 * Writes an event and one pending delivery per subscribed endpoint. Callers pass the database
 * transaction of the state change itself, so the change and its event commit or vanish together: a
 * crash can neither lose an event nor invent one. A transaction's event is announced on the gateway's
 * status bus (deps.state.statusBus).
 */
export async function enqueueEvent(db: Executor, bus: StatusBus, event: NewEvent): Promise<string> {
  const id = newEventId();
  const body = { id, type: event.type, created_at: new Date(event.now).toISOString(), data: event.data };
  await insertEvent(db, {
    id,
    merchant_id: event.merchantId,
    mode: event.mode,
    type: event.type,
    transaction_id: event.transactionId ?? null,
    payment_id: event.paymentId ?? null,
    payload: JSON.stringify(body),
    created_at: event.now,
  });
  if (event.transactionId) await bus.announce(db, event.transactionId);
  // The merchant's alert channels (Telegram, Discord, e-mail) hear of it in the same unit of work.
  await enqueueEventAlerts(db, { id, merchantId: event.merchantId, type: event.type, data: event.data, now: event.now });
  const endpoints = await enabledEndpointSubscriptions(db, event.merchantId);
  const subscribed = endpoints.filter((e) => subscribes(e.events, event.type));
  if (subscribed.length > 0) {
    await insertDeliveries(
      db,
      subscribed.map((e) => newDelivery(id, e.id, event.now)),
    );
  }
  return id;
}
