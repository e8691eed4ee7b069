import { webhookEndpointRows } from '../../storage/queries/webhook-endpoints.js';
import type { Deps } from '../deps.js';
import { view, type WebhookEndpointView } from './webhook-endpoint-view.js';

export async function listWebhookEndpoints(deps: Deps, merchantId?: string): Promise<WebhookEndpointView[]> {
  return (await webhookEndpointRows(deps.db, merchantId)).map(view);
}
