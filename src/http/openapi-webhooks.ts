// The webhook deliveries in the OpenAPI document (3.1's `webhooks`), from the same schemas the client's
// types are generated from, so /docs shows what a receiver gets.
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { PaymentEvent, RefundEvent, TransactionEvent } from './schemas.js';

type Webhooks = NonNullable<
  Extract<NonNullable<FastifyDynamicSwaggerOptions['openapi']>, { webhooks?: unknown }>['webhooks']
>;
type PathItem = Webhooks[string];

const SIGNATURE_HEADERS = {
  'webhook-id': 'The event id (`evt_...`), the same on every attempt and resend: deduplicate by it.',
  'webhook-timestamp': 'Unix seconds of this attempt.',
  'webhook-signature':
    '`v1,<base64 HMAC-SHA256(base64-decoded secret after whsec_, "<webhook-id>.<webhook-timestamp>.<raw body>")>` (Standard Webhooks).',
  'x-signature': 'The older scheme: `t=<unix seconds>,v1=<hex HMAC-SHA256(whole secret as text, "<t>.<raw body>")>`.',
};

function delivery(operationId: string, summary: string, schema: object): PathItem {
  return {
    post: {
      operationId,
      summary,
      description:
        'Sent to each endpoint subscribed to the event, at least once, until it answers 2xx (see docs/webhooks.md).',
      parameters: Object.entries(SIGNATURE_HEADERS).map(([name, description]) => ({
        in: 'header' as const,
        name,
        required: true,
        description,
        schema: { type: 'string' as const },
      })),
      requestBody: { required: true, content: { 'application/json': { schema } } },
      responses: { '2XX': { description: 'Received: no more attempts.' } },
    },
  };
}

export const openApiWebhooks: Webhooks = {
  'transaction.paid': delivery(
    'notifyTransactionPaid',
    'A payment matched a transaction (paid_late after expiry or cancel)',
    TransactionEvent,
  ),
  'transaction.expired': delivery('notifyTransactionExpired', 'A pending transaction expired', TransactionEvent),
  'transaction.cancelled': delivery(
    'notifyTransactionCancelled',
    'A pending transaction was cancelled',
    TransactionEvent,
  ),
  'payment.unmatched': delivery('notifyPaymentUnmatched', 'A payment matched no transaction', PaymentEvent),
  'refund.succeeded': delivery(
    'notifyRefundSucceeded',
    'A refund succeeded (or was recorded, for a code made from a static QRIS)',
    RefundEvent,
  ),
  'refund.failed': delivery('notifyRefundFailed', 'The acquirer refused a refund: nothing was refunded', RefundEvent),
};
