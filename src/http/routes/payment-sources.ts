import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../services/deps.js';
import { sourceKinds } from '../../payment-sources/kinds.js';

/**
 * Inbound payment reports, each kind's own routes: a signed webhook's POST /api/payment-sources/{source}/events,
 * a SNAP acquirer's token and notify paths.
 */
export async function paymentSourceRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  for (const kind of sourceKinds) await kind.routes?.(app, deps);
}
