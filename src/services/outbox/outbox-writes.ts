// The outbox rows of several changes made one after another in one unit of work (a batch of payment
// reports, services/payments/record-payment.ts), gathered and written at its end in one statement per
// table, with the merchant's endpoints and alert channels read once for the whole batch. Nothing else in
// the unit reads these rows, and they commit or vanish with it all the same (ADR 4): only the number of
// statements changes. An endpoint or channel added while the batch runs gets the batch's events only if
// it was there when the batch first asked, as if the batch had committed a moment earlier.
import type { Executor } from '../../storage/executor.js';
import { insertDeliveries } from '../../storage/queries/deliveries.js';
import { activeNotifyChannelIds, insertNotifyDeliveries, merchantNameOf } from '../../storage/queries/notify.js';
import { insertEvents, insertEventsNotifying } from '../../storage/queries/outbox.js';
import { enabledEndpointSubscriptions } from '../../storage/queries/webhook-endpoints.js';
import type { DeliveriesTable, EventsTable, NotifyDeliveriesTable } from '../../storage/schema.js';

type Memo<T> = Map<string, Promise<T>>;

function remembered<T>(memo: Memo<T>, key: string, read: () => Promise<T>): Promise<T> {
  let value = memo.get(key);
  if (value === undefined) {
    value = read();
    memo.set(key, value);
  }
  return value;
}

export class OutboxWrites {
  readonly events: EventsTable[] = [];
  readonly deliveries: DeliveriesTable[] = [];
  readonly alerts: NotifyDeliveriesTable[] = [];
  /** Transactions whose status changed, announced on the status bus once the rows are written. */
  readonly announced: string[] = [];
  readonly #endpoints: Memo<{ id: string; events: string }[]> = new Map();
  readonly #channels: Memo<string[]> = new Map();
  readonly #names: Memo<string | undefined> = new Map();

  endpointsOf(db: Executor, merchantId: string): Promise<{ id: string; events: string }[]> {
    return remembered(this.#endpoints, merchantId, () => enabledEndpointSubscriptions(db, merchantId));
  }

  channelsOf(db: Executor, merchantId: string): Promise<string[]> {
    return remembered(this.#channels, merchantId, () => activeNotifyChannelIds(db, merchantId));
  }

  /** Endpoints and channels already read (merchantReportFacts), kept unless the batch read them first. */
  know(merchantId: string, endpoints: { id: string; events: string }[], channels: string[]): void {
    if (!this.#endpoints.has(merchantId)) this.#endpoints.set(merchantId, Promise.resolve(endpoints));
    if (!this.#channels.has(merchantId)) this.#channels.set(merchantId, Promise.resolve(channels));
  }

  nameOf(db: Executor, merchantId: string): Promise<string | undefined> {
    return remembered(this.#names, merchantId, () => merchantNameOf(db, merchantId));
  }

  /**
   * Writes what was gathered (events before the deliveries and alerts that name them), then hands the
   * transactions to `announce`; call it last in the unit of work.
   */
  async write(db: Executor, announce: (db: Executor, trxids: readonly string[]) => Promise<void>): Promise<void> {
    const events = this.events.splice(0);
    const announced = this.announced.splice(0);
    // On PostgreSQL the announcement rides on the events' insert (one round trip fewer a batch).
    const notified = await insertEventsNotifying(db, events, announced);
    if (!notified) await insertEvents(db, events);
    await insertDeliveries(db, this.deliveries.splice(0));
    await insertNotifyDeliveries(db, this.alerts.splice(0));
    if (!notified) await announce(db, announced);
  }
}
