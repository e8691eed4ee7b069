import { SYSTEM_ACTOR, type Actor } from '../../domain/actor.js';
import { failPendingJobs } from '../../storage/queries/outbox-jobs.js';
import { disableWebhookEndpoint } from '../../storage/queries/webhook-endpoints.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { getWebhookEndpoint } from './get-webhook-endpoint.js';
import { view, type WebhookEndpointView } from './webhook-endpoint-view.js';

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
    const closed = await failPendingJobs(trx, 'deliveries', 'endpoint_id', id);
    await writeAudit(trx, {
      actor,
      action: 'webhook_endpoint.remove',
      subjectType: 'webhook_endpoint',
      subjectId: id,
      now,
    });
    return closed;
  });
  return { ...view(await getWebhookEndpoint(deps, id)), cancelled_deliveries: cancelled };
}
