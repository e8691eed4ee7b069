import { AppError } from '../../domain/errors.js';
import { webhookEndpointInScope } from '../../storage/queries/webhook-endpoints.js';
import type { WebhookEndpointsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from '../../domain/viewer.js';

/** The endpoint if the viewer may see it, else not_found. */
export async function getVisibleEndpoint(deps: Deps, viewer: Viewer, id: string): Promise<WebhookEndpointsTable> {
  const row = /^we_[0-9A-Za-z]{1,64}$/.test(id)
    ? await webhookEndpointInScope(deps.db, id, merchantScope(viewer))
    : undefined;
  if (!row) throw new AppError('not_found', 'no such webhook endpoint', { param: 'endpoint' });
  return row;
}
