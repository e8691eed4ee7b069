import { attemptsOfDeliveries, endpointDeliveryPage, type DeliveryListRow } from '../../storage/queries/deliveries.js';
import type { DeliveryAttemptsTable, WebhookEndpointsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

export const DELIVERIES_PER_PAGE = 20;

export interface DeliveryWithAttempts extends DeliveryListRow {
  /** Oldest first. */
  attemptLog: DeliveryAttemptsTable[];
}

/** Where a page of deliveries ends, as one URL-safe token. */
export function deliveriesCursor(row: Pick<DeliveryListRow, 'created_at' | 'id'>): string {
  return `${row.created_at}.${row.id}`;
}

/** A page of an endpoint's deliveries, newest first, each with all its attempts; a malformed cursor is the first page. */
export async function endpointDeliveries(
  deps: Deps,
  endpoint: Pick<WebhookEndpointsTable, 'id'>,
  cursor: string | null,
): Promise<{ deliveries: DeliveryWithAttempts[]; next: string | null }> {
  const m = cursor === null ? null : /^([0-9]{1,16})\.(dlv_[0-9A-Za-z]{1,64})$/.exec(cursor);
  const before = m ? { createdAt: Number(m[1]), id: m[2]! } : null;
  const rows = await endpointDeliveryPage(deps.db, endpoint.id, before, DELIVERIES_PER_PAGE + 1);
  const page = rows.slice(0, DELIVERIES_PER_PAGE);
  const attempts = await attemptsOfDeliveries(
    deps.db,
    page.map((d) => d.id),
  );
  const byDelivery = new Map<string, DeliveryAttemptsTable[]>();
  for (const a of attempts) {
    const list = byDelivery.get(a.delivery_id);
    if (list) list.push(a);
    else byDelivery.set(a.delivery_id, [a]);
  }
  return {
    deliveries: page.map((d) => ({ ...d, attemptLog: byDelivery.get(d.id) ?? [] })),
    next: rows.length > DELIVERIES_PER_PAGE ? deliveriesCursor(page[page.length - 1]!) : null,
  };
}
