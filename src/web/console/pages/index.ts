import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../../services/deps.js';
import type { ConsoleKit } from '../context.js';
import { accountLinkRoutes } from './account-links.js';
import { approvalRoutes } from './approvals.js';
import { auditRoutes } from './audit.js';
import { keyRoutes } from './keys.js';
import { merchantRoutes } from './merchants.js';
import { linkRoutes } from './links.js';
import { overviewPage, type OverviewQuery } from './overview.js';
import { paymentRoutes } from './payments.js';
import { reportRoutes } from './reports.js';
import { posRoutes } from './pos.js';
import { webhookRoutes } from './webhooks.js';
import { notificationRoutes } from './notifications.js';
import { sourceRoutes } from './sources.js';
import { soundboxRoutes } from './soundbox.js';
import { userRoutes } from './users.js';
import { transactionRoutes } from './transactions.js';

/** A section of the console: registers its routes in the console's scope (paths relative to /dashboard). */
export type SectionRoutes = (scope: FastifyInstance, deps: Deps, kit: ConsoleKit) => Promise<void>;

/** Every page of the console. Add a section's routes here. */
export const CONSOLE_PAGES: {
  overview: (deps: Deps, request: FastifyRequest, reply: FastifyReply, query: OverviewQuery) => Promise<FastifyReply>;
  sections: SectionRoutes[];
} = {
  overview: overviewPage,
  sections: [
    accountLinkRoutes,
    userRoutes,
    approvalRoutes,
    transactionRoutes,
    posRoutes,
    paymentRoutes,
    reportRoutes,
    webhookRoutes,
    notificationRoutes,
    sourceRoutes,
    merchantRoutes,
    keyRoutes,
    linkRoutes,
    auditRoutes,
    soundboxRoutes,
  ],
};
