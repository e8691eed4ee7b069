import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../services/deps.js';

/** SNAP BI QR MPM payment notifications from acquirers (default POST /snap/v1.0/qr/qr-mpm-notify). */
export async function snapNotifyRoutes(_app: FastifyInstance, _deps: Deps): Promise<void> {
  // Routes are added here.
}
