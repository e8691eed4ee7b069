import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { parseRefundAmount, parseRefundReason, parseRefundReference } from '../../domain/refund.js';
import { refundTransaction } from '../../services/refunds/refund-transaction.js';
import { requirePrincipal } from '../auth.js';
import { parseToken, parseTrxid, requestHash } from '../params.js';
import { RefundBody, RefundedTransaction, RefundOneBody, RefundQuery, errorResponses, ok } from '../schemas.js';
import { sendSerialized } from '../serialization.js';
import type { RouteContext } from './context.js';

function noBodyAsEmpty(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  request.body ??= {};
  done();
}

export async function refundRoutes(app: FastifyInstance, ctx: RouteContext): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const { deps, hide, guard } = ctx;

  async function handle(request: FastifyRequest, reply: FastifyReply, params: Record<string, unknown>) {
    const principal = requirePrincipal(request);
    const trxid = parseTrxid(params.trxid, true)!;
    const amount = parseRefundAmount(params.amount);
    const reason = parseRefundReason(params.reason);
    const reference = parseRefundReference(params.reference);
    const idemKey = parseToken(request.headers['idempotency-key'], 'Idempotency-Key', 255);
    const result = await refundTransaction(deps, {
      trxid,
      owner: { merchantId: principal.merchantId, mode: principal.mode },
      amount,
      reason,
      reference,
      idempotency:
        idemKey === null
          ? null
          : { key: idemKey, requestHash: requestHash({ trxid, amount, reason, reference, mode: principal.mode }) },
      actor: principal.actor,
    });
    if (result.replayed) reply.header('Idempotent-Replayed', 'true');
    return sendSerialized(reply, RefundOneBody, { success: true, data: result.transaction });
  }

  // POST only, unlike cancel: a refund gives money away, and link checkers and prefetchers send GETs freely.
  typed.post('/payment-gateway/refund', {
    schema: {
      operationId: 'refundTransaction',
      tags: ['transactions'],
      summary: 'Refund a paid transaction, wholly or in part',
      description:
        'Parameters in the query, a JSON body or a form body. `amount` defaults to everything that remains; the refunds of a ' +
        'transaction never sum over what it received (409 `refund_exceeds_remaining`) and never number more than ' +
        '`REFUND_MAX_PER_TRANSACTION` (409 `refund_limit_reached`); only a paid one can be refunded (409 `transaction_not_paid`). ' +
        '`reason` and `reference` reach the payer in a refund notice, so one with a link or an address (a URL, a domain, an ' +
        'e-mail or IP address, look-alike dots included) is a 400 `invalid_parameter`. Send an `Idempotency-Key` header to retry safely: the same request answers the same refund, ' +
        'another request with the key is a 409 `idempotency_key_reused`.\n\n' +
        'A code made from your static QRIS: the gateway cannot move that money (it went to your own account), so the refund is ' +
        'a **record** that you paid it back yourself (`recorded: true`, with your optional `reference`), succeeded at once. ' +
        "An acquirer's code (a SNAP source): the acquirer is asked; a refusal is a 422 `refund_refused` (kept as `failed`), no " +
        'answer a 503 `acquirer_unavailable` with the refund kept `pending` and asked again until final (nothing counted as refunded ' +
        'meanwhile); "in progress" answers 200 with the refund `pending`.',
      hide,
      querystring: RefundQuery,
      body: RefundBody,
      response: { 200: ok(RefundedTransaction), ...errorResponses },
    },
    preValidation: [noBodyAsEmpty, guard],
    handler: (req, reply) => handle(req, reply, { ...req.query, ...(req.body ?? {}) }),
  });
}
