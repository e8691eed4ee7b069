import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../services/deps.js';
import { sourceKinds } from '../../payment-sources/kinds.js';
import { inboundEventRoutes } from '../../payment-sources/inbound-route.js';

/**
 * Inbound payment reports: the one POST /api/payment-sources/{source}/events every inbound kind is posted
 * to (inbound-route.ts), and each kind's own routes (a SNAP acquirer's token and notify paths).
 */
export async function paymentSourceRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  await inboundEventRoutes(app, deps, sourceKinds);
  for (const kind of sourceKinds) await kind.routes?.(app, deps);
}
