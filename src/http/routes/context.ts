import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../services/deps.js';

export interface RouteContext {
  deps: Deps;
  /** True for the /api/api duplicate mount, which is left out of the OpenAPI document. */
  hide: boolean;
  /** Authenticates the key and applies its rate limit. */
  guard: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}
