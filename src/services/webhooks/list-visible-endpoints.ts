// The console's view of webhook endpoints (a viewer's endpoints, one of them, and its deliveries with
// every attempt): another merchant's endpoint is not found, exactly as an unknown one.
import { webhookEndpointsInScope } from '../../storage/queries/webhook-endpoints.js';
import type { WebhookEndpointsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { merchantScope, type Viewer } from '../../domain/viewer.js';

export async function listVisibleEndpoints(deps: Deps, viewer: Viewer): Promise<WebhookEndpointsTable[]> {
  return webhookEndpointsInScope(deps.db, merchantScope(viewer));
}
