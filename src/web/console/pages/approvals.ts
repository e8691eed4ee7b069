import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { approveLive } from '../../../services/merchants/approve-live.js';
import type { Deps } from '../../../services/deps.js';
import { Form, Params, Segment, pageSchema } from '../../forms.js';
import { consolePage } from '../context.js';
import { redirectWithNotice } from '../notice.js';
import { approvedText } from './overview.js';

/** POST /dashboard/approvals/{merchantId}: an operator approves a merchant's live keys (the overview's queue). */
export async function approvalRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.post('/approvals/:merchantId', { schema: pageSchema({ params: Params({ merchantId: Segment() }), body: Form({}) }) }, async (request, reply) => {
    const page = consolePage(request, reply);
    await approveLive(deps, page.viewer, request.params.merchantId);
    return redirectWithNotice(reply, '/dashboard', { kind: 'success', text: approvedText(page.lang) });
  });
}
