import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../../services/deps.js';
import { auditRoutes } from './audit.js';
import { keysRoutes } from './keys.js';
import { merchantsRoutes } from './merchants.js';
import { overviewPage } from './overview.js';

/** A section of the console: registers its routes in the console's scope (paths relative to /dashboard). */
export type SectionRoutes = (scope: FastifyInstance, deps: Deps) => Promise<void>;

/** Every page of the console. Add a section's routes here. */
export const CONSOLE_PAGES: {
  overview: (deps: Deps, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
  sections: SectionRoutes[];
} = {
  overview: overviewPage,
  sections: [merchantsRoutes, keysRoutes, auditRoutes],
};
