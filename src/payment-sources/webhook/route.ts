import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../domain/errors.js';
import type { Deps } from '../../services/deps.js';
import { recordPayment } from '../../services/payments/record-payment.js';
import { errorResponses, ok } from '../../http/schemas.js';
import { sendError } from '../../http/errors.js';
import { parseWebhookPayment } from './payload.js';
import { verifySignature, type SignatureCheck } from './signature.js';
import { findWebhookSource } from './setup.js';

const URL_PATH = '/payment-sources/:source/events';
const OTHER_METHODS = ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

const SIGNATURE_PROBLEM: Record<Exclude<SignatureCheck, { ok: true }>['why'], string> = {
  missing: 'X-Signature is required: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">',
  malformed: 'X-Signature must be t=<unix seconds>,v1=<64 hex digits>',
  expired: 'the signature timestamp is more than 5 minutes away from the server clock',
  mismatch: 'the signature does not match the body',
};

const EventResult = Type.Object({
  payment_id: Type.String(),
  status: Type.String({ enum: ['matched', 'unmatched', 'duplicate'] }),
  trxid: Type.Union([Type.String(), Type.Null()]),
  /** Why an unmatched (or duplicate unmatched) payment paid nothing, such as merchant_disabled; null when it paid. */
  reason: Type.Union([Type.String(), Type.Null()]),
});

/**
 * POST /api/payment-sources/{source}/events (and under /api/api). The body is kept as raw bytes by a
 * content-type parser scoped to this plugin: the HMAC covers exactly what the sender sent, and nothing
 * in it is read before the signature holds.
 */
export async function webhookEventRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  for (const [prefix, hide] of [
    ['/api', false],
    ['/api/api', true],
  ] as const) {
    await app.register(
      async (scope) => {
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
        scope.post(URL_PATH, {
          schema: {
            tags: ['payment sources'],
            summary: 'Report a payment from a signed webhook source',
            description:
              'Body: `{"id", "amount", "paid_at", "reference"?, "payer"?, "issuer"?}`. Header `X-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, within 5 minutes of the server clock.',
            hide,
            security: [],
            params: Type.Object({ source: Type.String() }),
            headers: Type.Object({ 'x-signature': Type.Optional(Type.String()) }),
            response: { 200: ok(EventResult), ...errorResponses },
          },
          handler: (request) => handleEvent(deps, request),
        });
        scope.route({
          method: [...OTHER_METHODS],
          url: URL_PATH,
          schema: { hide: true },
          handler: async (_request, reply) => {
            reply.header('Allow', 'POST');
            return sendError(reply, new AppError('method_not_allowed', 'use POST'));
          },
        });
      },
      { prefix },
    );
  }
}

async function handleEvent(deps: Deps, request: FastifyRequest) {
  const { source: sourceId } = request.params as { source: string };
  const source = await findWebhookSource(deps, sourceId);
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const now = deps.now();
  const check = verifySignature(request.headers['x-signature'], source.secret, body, now);
  if (!check.ok) {
    request.log.warn({ source: source.id, why: check.why }, 'webhook source: signature rejected');
    throw new AppError('invalid_signature', SIGNATURE_PROBLEM[check.why]);
  }
  const payment = parseWebhookPayment(body, { min: 1, max: deps.config.amountMax }, now);
  const result = await recordPayment(deps, {
    merchantId: source.merchantId,
    mode: source.mode,
    source: source.id,
    sourcePaymentId: payment.id,
    amount: payment.amount,
    paidAt: payment.paidAt,
    reference: payment.reference,
    payerName: payment.payer,
    issuer: payment.issuer,
    raw: payment.raw,
  });
  return {
    success: true as const,
    data: { payment_id: result.payment.id, status: result.outcome, trxid: result.payment.transaction_id, reason: result.reason },
  };
}
