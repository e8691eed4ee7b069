// Adds a merchant's webhook endpoint. Deliveries are created when an event happens (see
// enqueue-event.ts), for the endpoints subscribed at that moment: an endpoint added later does not receive
// older events unless an operator resends them to it.
import { SYSTEM_ACTOR, type Actor } from '../../domain/actor.js';
import { newEndpointId } from '../../domain/ids.js';
import { validateWebhookUrl } from '../../domain/webhook-url.js';
import { insertWebhookEndpoint } from '../../storage/queries/webhook-endpoints.js';
import type { WebhookEndpointsTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import { getMerchant } from '../merchants/get-merchant.js';
import type { Deps } from '../deps.js';
import { parseEventList } from '../../domain/webhook-events.js';
import { view, type CreatedWebhookEndpoint } from './webhook-endpoint-view.js';
import { newWebhookSecret } from './webhook-secret.js';

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
    await writeAudit(trx, {
      actor: input.actor ?? SYSTEM_ACTOR,
      action: 'webhook_endpoint.add',
      subjectType: 'webhook_endpoint',
      subjectId: row.id,
      details: { url, events },
      now,
    });
  });
  return { ...view(row), secret: row.secret };
}
