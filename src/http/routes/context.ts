import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../services/deps.js';

export interface RouteContext {
  deps: Deps;
  /** Authenticates the key and applies its rate limit. */
  guard: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}
