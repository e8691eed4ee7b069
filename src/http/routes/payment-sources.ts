import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../services/deps.js';
import { webhookEventRoutes } from '../../payment-sources/webhook/route.js';

/** Inbound payment reports from configured sources: POST /api/payment-sources/{source}/events. */
export async function paymentSourceRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  await webhookEventRoutes(app, deps);
}
