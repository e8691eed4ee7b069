import type { FastifyInstance } from 'fastify';
import { approveLive } from '../../../services/merchants/approve-live.js';
import type { Deps } from '../../../services/deps.js';
import { consolePage } from '../context.js';
import { redirectWithNotice } from '../notice.js';
import { approvedText } from './overview.js';

/** POST /dashboard/approvals/{merchantId}: an operator approves a merchant's live keys (the overview's queue). */
export async function approvalRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  scope.post<{ Params: { merchantId: string } }>('/approvals/:merchantId', { schema: { hide: true } }, async (request, reply) => {
    const page = consolePage(request, reply);
    await approveLive(deps, page.viewer, request.params.merchantId);
    return redirectWithNotice(reply, '/dashboard', { kind: 'success', text: approvedText(page.lang) });
  });
}
