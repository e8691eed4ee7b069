import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { parseAmount } from '../../domain/money.js';
import { parseEmail } from '../../domain/email.js';
import { presentTransaction } from '../../domain/transaction.js';
import type { TransactionStatus } from '../../storage/schema.js';
import { createTransaction } from '../../services/transactions/create-transaction.js';
import { getTransaction } from '../../services/transactions/get-transaction.js';
import { listTransactions } from '../../services/transactions/list-transactions.js';
import { quotaUsage } from '../../services/merchants/quota-usage.js';
import { qrPngDataUrl } from '../../qr/qr-png.js';
import { requirePrincipal } from '../auth.js';
import { parseBoundedInt, parseToken, parseTrxid, requestHash } from '../params.js';
import {
  ApiKeyQuery,
  CreateBody,
  CreateQuery,
  StatusOneBody,
  StatusPageBody,
  StatusQuery,
  Transaction,
  TransactionPage,
  errorResponses,
  ok,
} from '../schemas.js';
import { sendSerialized } from '../serialization.js';
import type { RouteContext } from './context.js';

export async function transactionRoutes(app: FastifyInstance, ctx: RouteContext): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const { deps, hide, guard } = ctx;

  async function create(
    request: FastifyRequest,
    reply: FastifyReply,
    params: Record<string, unknown>,
    isPost: boolean,
  ) {
    const principal = requirePrincipal(request);
    const { config } = deps;
    // The unique code is part of the total, so the largest base amount leaves room for the smallest code.
    const amount = parseAmount(params.amount, { min: config.amountMin, max: config.amountMax - config.uniqueCodeMin });
    const email = parseEmail(params.email);
    const ref = parseToken(params.ref, 'ref', 64);
    const expiresIn = parseBoundedInt(
      params.expires_in,
      'expires_in',
      config.expiresInMinSeconds,
      config.expiresInMaxSeconds,
      null,
    );
    const idemKey = isPost ? parseToken(request.headers['idempotency-key'], 'Idempotency-Key', 255) : null;
    const result = await createTransaction(deps, {
      merchantId: principal.merchantId,
      mode: principal.mode,
      amount,
      email,
      ref,
      expiresInSeconds: expiresIn,
      idempotency:
        idemKey === null
          ? null
          : { key: idemKey, requestHash: requestHash({ amount, email, ref, expiresIn, mode: principal.mode }) },
    });
    const view = presentTransaction(result.transaction, null, deps.now(), config.publicBaseUrl);
    if (params.qr_image === 'inline') view.qr_image = qrPngDataUrl(view.qris);
    if (result.replayed) reply.header('Idempotent-Replayed', 'true');
    // A merchant with a daily quota learns what is left of it with every create. The quota the create read
    // serves (most merchants have none: then nothing more is asked).
    const quota = result.apiQuota === null ? null : await quotaUsage(deps, principal.merchantId, result.apiQuota);
    if (quota)
      reply
        .header('X-Quota-Limit', String(quota.limit))
        .header('X-Quota-Remaining', String(quota.remaining))
        .header('X-Quota-Reset', String(quota.resetSeconds));
    reply.code(isPost && !result.replayed ? 201 : 200);
    return sendSerialized(reply, StatusOneBody, { success: true, data: view });
  }

  const createSchema = {
    tags: ['transactions'],
    summary: 'Create a transaction and its dynamic QRIS',
    hide,
    response: { 200: ok(Transaction), ...errorResponses },
  };

  // GET creates, so HEAD must not: link checkers and monitors send HEAD freely (it answers 405).
  typed.get('/payment-gateway/cqris', {
    exposeHeadRoute: false,
    schema: { ...createSchema, operationId: 'createQrisWithQuery', querystring: CreateQuery },
    preValidation: guard,
    handler: (request, reply) => create(request, reply, request.query, false),
  });

  typed.post('/payment-gateway/cqris', {
    schema: {
      ...createSchema,
      operationId: 'createQris',
      description: 'The same operation with a JSON or form body. Send an `Idempotency-Key` header to retry safely.',
      querystring: Type.Object(ApiKeyQuery),
      body: Type.Optional(CreateBody),
      // Only POST creates with 201; a replay (same Idempotency-Key or ref) is 200.
      response: { ...createSchema.response, 201: ok(Transaction) },
    },
    preValidation: guard,
    handler: (request, reply) => create(request, reply, { ...(request.body ?? {}) }, true),
  });

  typed.get('/payment-gateway/cstatus', {
    schema: {
      operationId: 'getTransactionStatus',
      tags: ['transactions'],
      summary: 'One transaction, or your transactions newest first',
      hide,
      querystring: StatusQuery,
      // Documented as the union; each answer is sent with its own shape (StatusOneBody, StatusPageBody).
      response: { 200: ok(Type.Union([Transaction, TransactionPage])), ...errorResponses },
    },
    preValidation: guard,
    handler: async (request, reply) => {
      const principal = requirePrincipal(request);
      const now = deps.now();
      const base = deps.config.publicBaseUrl;
      const trxid = parseTrxid(request.query.trxid, false);
      if (trxid !== null) {
        const found = await getTransaction(deps, principal, trxid);
        return sendSerialized(reply, StatusOneBody, {
          success: true,
          data: presentTransaction(found.transaction, found.payment, now, base, found.refunds),
        });
      }
      const limit = parseBoundedInt(request.query.limit, 'limit', 1, 100, 20)!;
      const page = await listTransactions(deps, {
        merchantId: principal.merchantId,
        mode: principal.mode,
        limit,
        cursor: parseToken(request.query.cursor, 'cursor', 200),
        status: (request.query.status as TransactionStatus | undefined) ?? null,
      });
      return sendSerialized(reply, StatusPageBody, {
        success: true,
        data: {
          items: page.items.map((i) => presentTransaction(i.transaction, i.payment, now, base, i.refunds)),
          next_cursor: page.nextCursor,
          has_more: page.nextCursor !== null,
        },
      });
    },
  });
}
