import { newEventId } from '../../domain/ids.js';
import type { Executor } from '../../storage/executor.js';
import { insertEvent } from '../../storage/queries/outbox.js';
import type { EventType, Mode } from '../../storage/schema.js';
import { fanOut } from '../outbox/fan-out.js';
import type { OutboxWrites } from '../outbox/outbox-writes.js';
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
 * Writes an event and its deliveries (outbox/fan-out.ts: one per subscribed endpoint, and alerts to
 * the merchant's channels when it is news for them). Callers pass the database
 * transaction of the state change itself, so the change and its event commit or vanish together: a
 * crash can neither lose an event nor invent one. A transaction's event is announced on the gateway's
 * status bus (deps.state.statusBus). With `writes`, the rows are gathered there and written at the end of
 * the unit of work (outbox-writes.ts).
 */
export async function enqueueEvent(
  db: Executor,
  bus: StatusBus,
  event: NewEvent,
  writes?: OutboxWrites,
): Promise<string> {
  const id = newEventId();
  const body = { id, type: event.type, created_at: new Date(event.now).toISOString(), data: event.data };
  const row = {
    id,
    merchant_id: event.merchantId,
    mode: event.mode,
    type: event.type,
    transaction_id: event.transactionId ?? null,
    payment_id: event.paymentId ?? null,
    payload: JSON.stringify(body),
    created_at: event.now,
  };
  if (writes) {
    writes.events.push(row);
    if (event.transactionId) writes.announced.push(event.transactionId);
  } else {
    await insertEvent(db, row);
    if (event.transactionId) await bus.announce(db, event.transactionId);
  }
  const happening = { event: { id, type: event.type, data: event.data }, merchantId: event.merchantId, now: event.now };
  await fanOut(db, happening, writes);
  return id;
}
