import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { presentTransaction } from '../../domain/transaction.js';
import { simulatePayment } from '../../payment-sources/simulator.js';
import { requirePrincipal } from '../auth.js';
import { parseTrxid } from '../params.js';
import { SimulateQuery, Transaction, errorResponses, ok } from '../schemas.js';
import type { RouteContext } from './context.js';
import { parseAmount } from '../../domain/money.js';

export async function simulateRoutes(app: FastifyInstance, ctx: RouteContext): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const { deps, hide, guard } = ctx;

  async function handle(request: FastifyRequest, params: Record<string, unknown>) {
    const principal = requirePrincipal(request);
    const trxid = parseTrxid(params.trxid, true)!;
    const amount =
      params.amount === undefined ? null : parseAmount(params.amount, { min: 1, max: deps.config.amountMax });
    const result = await simulatePayment(deps, principal, trxid, amount);
    return {
      success: true as const,
      data: presentTransaction(result.transaction, result.payment, deps.now(), deps.config.publicBaseUrl),
    };
  }

  const schema = {
    tags: ['sandbox'],
    summary: 'Pay a sandbox transaction (sk_test_ keys only)',
    hide,
    querystring: SimulateQuery,
    response: { 200: ok(Transaction), ...errorResponses },
  };
  typed.get('/payment-gateway/simulate', {
    schema: { ...schema, operationId: 'simulatePaymentWithQuery' },
    exposeHeadRoute: false,
    preValidation: guard,
    handler: (req) => handle(req, req.query),
  });
  typed.post('/payment-gateway/simulate', {
    schema: { ...schema, operationId: 'simulatePayment' },
    preValidation: guard,
    handler: (req) => handle(req, { ...req.query, ...((req.body as Record<string, unknown> | undefined) ?? {}) }),
  });
}
