import { AppError } from '../../domain/errors.js';
import { webhookEndpointById } from '../../storage/queries/webhook-endpoints.js';
import type { WebhookEndpointsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

export async function getWebhookEndpoint(deps: Deps, id: string): Promise<WebhookEndpointsTable> {
  const row = await webhookEndpointById(deps.db, id);
  if (!row) throw new AppError('not_found', `no webhook endpoint ${id}`, { param: 'endpoint' });
  return row;
}
