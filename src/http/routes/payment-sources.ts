import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../services/deps.js';

/** Inbound payment reports from configured sources: POST /api/payment-sources/{source}/events. */
export async function paymentSourceRoutes(_app: FastifyInstance, _deps: Deps): Promise<void> {
  // Routes are added here.
}
