// Merchant webhook endpoints: add, list, remove. Deliveries are created when an event happens (see
// outbox.ts), for the endpoints subscribed at that moment: an endpoint added later does not receive
// older events unless an operator resends them to it.
import { SYSTEM_ACTOR, type Actor } from '../../domain/actor.js';
import { randomBytes } from 'node:crypto';
import { AppError } from '../../domain/errors.js';
import { newEndpointId } from '../../domain/ids.js';
import { validateWebhookUrl } from '../../domain/webhook-url.js';
import { failPendingDeliveriesOf } from '../../storage/queries/deliveries.js';
import {
  disableWebhookEndpoint,
  insertWebhookEndpoint,
  webhookEndpointById,
  webhookEndpointRows,
} from '../../storage/queries/webhook-endpoints.js';
import type { EventType, WebhookEndpointsTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import { getMerchant } from '../merchants/create-merchant.js';
import type { Deps } from '../deps.js';
import { isoTime } from '../../domain/iso-time.js';

export const EVENT_TYPES: readonly EventType[] = ['transaction.paid', 'transaction.expired', 'transaction.cancelled', 'payment.unmatched'];

export interface WebhookEndpointView {
  id: string;
  merchant_id: string;
  url: string;
  events: string[];
  status: WebhookEndpointsTable['status'];
  consecutive_failures: number;
  created_at: string;
  updated_at: string;
}

export interface CreatedWebhookEndpoint extends WebhookEndpointView {
  /** Shown once, at creation; the gateway needs it to sign, so it is stored, but never listed. */
  secret: string;
}

/**
 * `whsec_` and the standard base64 of 32 random bytes: a Standard Webhooks secret, whose decoded bytes
 * key webhook-signature, while X-Signature is keyed by the whole text. Endpoints made before kept their
 * `whsec_` + 32 base62 characters, which is valid base64 too (24 bytes), so they need no migration.
 */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** Event types from `a,b` text; empty or `*` means every type. */
export function parseEventList(text: string | undefined): string[] {
  if (text === undefined || text.trim() === '' || text.trim() === '*') return ['*'];
  const items = [...new Set(text.split(',').map((s) => s.trim()))];
  for (const item of items) {
    if (!(EVENT_TYPES as readonly string[]).includes(item)) {
      throw new AppError('invalid_parameter', `unknown event type ${JSON.stringify(item)}; expected ${EVENT_TYPES.join(', ')} or *`, { param: 'events' });
    }
  }
  return items;
}

export async function addWebhookEndpoint(
  deps: Deps,
  input: { merchantId: string; url: string; events?: string[]; actor?: Actor },
): Promise<CreatedWebhookEndpoint> {
  await getMerchant(deps, input.merchantId);
  const url = validateWebhookUrl(input.url, deps.config.webhookAllowNetworks);
  const events = parseEventList((input.events ?? ['*']).join(','));
  const now = deps.now();
  const row: WebhookEndpointsTable = {
    id: newEndpointId(),
    merchant_id: input.merchantId,
    url,
    secret: newWebhookSecret(),
    events: JSON.stringify(events),
    status: 'active',
    consecutive_failures: 0,
    created_at: now,
    updated_at: now,
  };
  await deps.db.runInTransaction(async (trx) => {
    await insertWebhookEndpoint(trx, row);
    await writeAudit(trx, { actor: input.actor ?? SYSTEM_ACTOR, action: 'webhook_endpoint.add', subjectType: 'webhook_endpoint', subjectId: row.id, details: { url, events }, now });
  });
  return { ...view(row), secret: row.secret };
}

export async function listWebhookEndpoints(deps: Deps, merchantId?: string): Promise<WebhookEndpointView[]> {
  return (await webhookEndpointRows(deps.db, merchantId)).map(view);
}

export async function getWebhookEndpoint(deps: Deps, id: string): Promise<WebhookEndpointsTable> {
  const row = await webhookEndpointById(deps.db, id);
  if (!row) throw new AppError('not_found', `no webhook endpoint ${id}`, { param: 'endpoint' });
  return row;
}

/**
 * Disables an endpoint. Its rows stay (deliveries and attempts are history the merchant may ask
 * about); deliveries still waiting are closed as failed so they leave the dispatcher's queue.
 */
export async function removeWebhookEndpoint(
  deps: Deps,
  id: string,
  actor: Actor = SYSTEM_ACTOR,
): Promise<WebhookEndpointView & { cancelled_deliveries: number }> {
  const now = deps.now();
  const cancelled = await deps.db.runInTransaction(async (trx) => {
    if (!(await disableWebhookEndpoint(trx, id, now))) return 0;
    const closed = await failPendingDeliveriesOf(trx, id);
    await writeAudit(trx, { actor, action: 'webhook_endpoint.remove', subjectType: 'webhook_endpoint', subjectId: id, now });
    return closed;
  });
  return { ...view(await getWebhookEndpoint(deps, id)), cancelled_deliveries: cancelled };
}

export function view(row: WebhookEndpointsTable): WebhookEndpointView {
  let events: string[];
  try {
    events = JSON.parse(row.events) as string[];
  } catch {
    events = [];
  }
  return {
    id: row.id,
    merchant_id: row.merchant_id,
    url: row.url,
    events,
    status: row.status,
    consecutive_failures: row.consecutive_failures,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}
