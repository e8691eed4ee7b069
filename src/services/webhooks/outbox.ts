import { newDeliveryId, newEventId } from '../../domain/ids.js';
import type { Executor } from '../../storage/executor.js';
import { insertDeliveries } from '../../storage/queries/deliveries.js';
import { insertEvent } from '../../storage/queries/outbox.js';
import { enabledEndpointSubscriptions } from '../../storage/queries/webhook-endpoints.js';
import type { DeliveriesTable, EventType, Mode } from '../../storage/schema.js';
import type { StatusBus } from '../transactions/status-bus.js';

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

/** A delivery as it starts: pending, due now, unclaimed, never attempted (also a resend to a new endpoint). */
export function newDelivery(eventId: string, endpointId: string, now: number): DeliveriesTable {
  return {
    id: newDeliveryId(),
    event_id: eventId,
    endpoint_id: endpointId,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    locked_until: null,
    last_attempt_at: null,
    last_status_code: null,
    created_at: now,
  };
}

export function subscribes(eventsJson: string, type: EventType): boolean {
  try {
    const list = JSON.parse(eventsJson) as unknown;
    return Array.isArray(list) && (list.includes('*') || list.includes(type));
  } catch {
    return false;
  }
}
