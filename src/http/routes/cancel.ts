import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { cancelTransaction } from '../../services/transactions/cancel-transaction.js';
import { requirePrincipal } from '../auth.js';
import { parseTrxid } from '../params.js';
import { CancelBody, CancelQuery, StatusOneBody, Transaction, errorResponses, ok } from '../schemas.js';
import { sendSerialized } from '../serialization.js';
import type { RouteContext } from './context.js';

// GET as well as POST, like cqris: many bot and shop clients can only send GET.
function noBodyAsEmpty(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  request.body ??= {};
  done();
}

export async function cancelRoutes(app: FastifyInstance, ctx: RouteContext): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const { deps, hide, guard } = ctx;

  async function handle(request: FastifyRequest, reply: FastifyReply, params: Record<string, unknown>) {
    const principal = requirePrincipal(request);
    const trxid = parseTrxid(params.trxid, true)!;
    const view = await cancelTransaction(deps, {
      trxid,
      owner: { merchantId: principal.merchantId, mode: principal.mode },
    });
    return sendSerialized(reply, StatusOneBody, { success: true, data: view });
  }

  const schema = {
    tags: ['transactions'],
    summary: 'Cancel a pending transaction',
    description:
      'Idempotent: cancelling a cancelled transaction answers it again. A paid one is a 409 `transaction_already_paid`, an expired ' +
      'one a 409 `transaction_expired`. Money that still arrives for a cancelled code (a payer who scanned it before) marks it ' +
      'paid with `paid_late: true` and `cancelled_at` kept.',
    hide,
    querystring: CancelQuery,
    response: { 200: ok(Transaction), ...errorResponses },
  };
  // Cancelling changes state, so HEAD must not: link checkers send HEAD freely (it answers 405).
  typed.get('/payment-gateway/cancel', {
    schema: { ...schema, operationId: 'cancelTransactionWithQuery' },
    exposeHeadRoute: false,
    preValidation: guard,
    handler: (req, reply) => handle(req, reply, req.query),
  });
  typed.post('/payment-gateway/cancel', {
    schema: { ...schema, operationId: 'cancelTransaction', body: CancelBody },
    // `POST /cancel?trxid=...` with no body at all is the documented form: validate that as an empty body.
    preValidation: [noBodyAsEmpty, guard],
    handler: (req, reply) => handle(req, reply, { ...req.query, ...(req.body ?? {}) }),
  });
}
