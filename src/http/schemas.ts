import { Type, type TSchema } from '@sinclair/typebox';
import { serializationSchema } from './serialization.js';

export { ErrorEnvelope, errorResponses } from '../wire/error-schemas.js';

// One source for validation, serialisation and the OpenAPI document. Query values are declared as
// strings and parsed by the domain, which gives each malformed form a precise error code.
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ApiKeyQuery = {
  apikey: Type.Optional(
    Type.String({
      description: 'Your secret key (`sk_test_...` or `sk_live_...`). The `X-Api-Key` header is preferred.',
    }),
  ),
};

export const CreateParams = {
  amount: Type.Optional(
    Type.String({
      description: 'Whole rupiah, digits only (an optional `.00` is accepted). Required.',
      examples: ['10000'],
    }),
  ),
  email: Type.Optional(Type.String({ description: "Payer's e-mail for the invoice and receipt." })),
  ref: Type.Optional(
    Type.String({
      description:
        'Your order id. Repeating it with the same amount returns the same transaction; another amount is a 409. Refs beginning with `link:` belong to payment links and are refused.',
    }),
  ),
  expires_in: Type.Optional(Type.String({ description: 'Seconds until the code expires (bounded by the server).' })),
  qr_image: Type.Optional(
    Type.String({ description: '`inline` adds the PNG as a data URL in `qr_image`.', enum: ['inline', 'url'] }),
  ),
};

export const CreateQuery = Type.Object({ ...ApiKeyQuery, ...CreateParams });

export const CreateBody = Type.Object({
  amount: Type.Optional(Type.Union([Type.String(), Type.Number()], { description: 'Whole rupiah.' })),
  email: Type.Optional(Type.String()),
  ref: Type.Optional(Type.String()),
  expires_in: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
  qr_image: Type.Optional(Type.String({ enum: ['inline', 'url'] })),
});

export const StatusQuery = Type.Object({
  ...ApiKeyQuery,
  trxid: Type.Optional(Type.String({ description: 'One transaction. Without it, your transactions newest first.' })),
  limit: Type.Optional(Type.String({ description: 'Page size, 1 to 100 (default 20).' })),
  cursor: Type.Optional(Type.String({ description: '`next_cursor` of the previous page.' })),
  status: Type.Optional(Type.String({ enum: ['pending', 'paid', 'expired', 'cancelled'] })),
});

export const SimulateQuery = Type.Object({
  ...ApiKeyQuery,
  trxid: Type.Optional(Type.String({ description: 'The sandbox transaction to pay.' })),
  amount: Type.Optional(Type.String({ description: 'Pay a different amount than due (to try mismatches).' })),
});

export const CancelQuery = Type.Object({
  ...ApiKeyQuery,
  trxid: Type.Optional(Type.String({ description: 'The pending transaction to cancel. Required (query or body).' })),
});

export const CancelBody = Type.Object({ trxid: Type.Optional(Type.String()) });

export const RefundParams = {
  trxid: Type.Optional(Type.String({ description: 'The paid transaction to refund. Required (query or body).' })),
  amount: Type.Optional(
    Type.Union([Type.String(), Type.Number()], {
      description: 'Whole rupiah. Without it, everything that remains of what the transaction received.',
    }),
  ),
  reason: Type.Optional(Type.String({ description: 'Why (1 to 256 characters). Required.' })),
  reference: Type.Optional(
    Type.String({
      description:
        'A code made from your static QRIS only: your own reference of the transfer or cash you paid back (at most 128 characters).',
    }),
  ),
};

export const RefundQuery = Type.Object({ ...ApiKeyQuery, ...RefundParams });
export const RefundBody = Type.Object(RefundParams);

export const Refund = Type.Object({
  id: Type.String({ description: 'The refund id (`rf_...`); for an acquirer, also its partnerRefundNo.' }),
  amount: Type.Integer(),
  status: Type.String({ enum: ['pending', 'succeeded', 'failed'] }),
  reason: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
  reference: Nullable(
    Type.String({ description: "The acquirer's reference of the refund, or your own reference of a recorded one." }),
  ),
  recorded: Type.Boolean({
    description:
      'True: recorded only. The gateway moved no money (a code made from your static QRIS): you paid it back yourself.',
  }),
  error_code: Nullable(
    Type.String({ description: 'Why it failed (`refund_refused`, `refund_exceeds_remaining`); null otherwise.' }),
  ),
});

export const Payment = Type.Object({
  id: Type.String(),
  source: Type.String(),
  amount: Type.Integer(),
  paid_at: Type.String({ format: 'date-time' }),
  reference: Nullable(Type.String()),
  issuer: Nullable(Type.String()),
  payer_name: Nullable(Type.String()),
});

export const Transaction = Type.Object({
  trxid: Type.String(),
  status: Type.String({ enum: ['pending', 'paid', 'expired', 'cancelled'] }),
  mode: Type.String({ enum: ['test', 'live'] }),
  amount: Type.Integer(),
  unique_code: Type.Integer({
    description:
      "Added to the amount to make the total unique; negative when the merchant subtracts it (the payer then pays less than the amount). 0 for an acquirer's code.",
  }),
  total_amount: Type.Integer({
    description: 'What the payer must pay: amount plus unique code (a negative code is a discount).',
  }),
  currency: Type.String({ description: 'Always IDR.', examples: ['IDR'] }),
  email: Nullable(Type.String()),
  ref: Nullable(Type.String()),
  qris: Type.String({ description: 'The dynamic QRIS payload.' }),
  qr_image_url: Type.String(),
  qr_image_svg_url: Type.String(),
  qr_image: Type.Optional(Type.String({ description: 'PNG data URL, when asked with qr_image=inline.' })),
  checkout_url: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
  paid_at: Nullable(Type.String({ format: 'date-time' })),
  paid_late: Type.Boolean({ description: 'Paid after it expired or was cancelled.' }),
  cancelled_at: Nullable(
    Type.String({
      format: 'date-time',
      description: 'When it was cancelled; kept if money arrived afterwards and it turned paid.',
    }),
  ),
  amount_paid: Type.Integer({
    description:
      'What it received (rupiah): 0 until paid, unless a person kept it open after a part payment (then what it received so far).',
  }),
  underpaid: Type.Integer({
    description:
      'By how much what it received falls short of the total: a shortfall a person accepted, or on an unpaid transaction kept open after a part payment, the rest still due; 0 when none.',
  }),
  overpaid: Type.Integer({
    description: 'By how much what it received went over the total (a person accepted it); 0 when none.',
  }),
  refunded_amount: Type.Integer({ description: 'The sum of its succeeded refunds (rupiah); 0 when none.' }),
  refund_status: Type.String({
    enum: ['none', 'partial', 'full'],
    description:
      'How much of what it received its succeeded refunds gave back: none, partial, or full. A refunded transaction stays `paid`; this tells it apart.',
  }),
  refunds: Type.Array(Refund, { description: 'Its refunds of any status, oldest first.' }),
  payment: Nullable(Payment),
});

/** A refund's answer: the transaction after it, and the refund with what it means in plain words. */
export const RefundedTransaction = Type.Object({
  ...Transaction.properties,
  refund: Type.Object({
    ...Refund.properties,
    note: Type.String({ description: 'What happened, plainly: above all, whether the gateway moved any money.' }),
  }),
});

export const TransactionPage = Type.Object({
  items: Type.Array(Transaction),
  next_cursor: Nullable(Type.String()),
  has_more: Type.Boolean(),
});

// What webhooks carry. Deliveries are built from the same views as the API's answers (enqueue-event.ts); these
// schemas describe them for the client package's generated types (scripts/client-types.ts), and a test
// checks real deliveries against them.
export const ReportedPayment = Type.Object({
  id: Type.String(),
  status: Type.Union([Type.Literal('matched'), Type.Literal('unmatched')]),
  reason: Nullable(Type.String({ description: 'Why it matched nothing, for an unmatched payment.' })),
  source: Type.String(),
  source_payment_id: Type.String(),
  amount: Type.Integer(),
  paid_at: Type.String({ format: 'date-time' }),
  received_at: Type.String({ format: 'date-time' }),
  reference: Nullable(Type.String()),
  issuer: Nullable(Type.String()),
  payer_name: Nullable(Type.String()),
  trxid: Nullable(Type.String()),
  mode: Type.String({ enum: ['test', 'live'] }),
});

export const TransactionEvent = Type.Object({
  id: Type.String({ description: 'The event id (`evt_...`), the same on every delivery of it: deduplicate by it.' }),
  type: Type.Union([
    Type.Literal('transaction.paid'),
    Type.Literal('transaction.expired'),
    Type.Literal('transaction.cancelled'),
  ]),
  created_at: Type.String({ format: 'date-time' }),
  data: Transaction,
});

export const PaymentEvent = Type.Object({
  id: Type.String(),
  type: Type.Literal('payment.unmatched'),
  created_at: Type.String({ format: 'date-time' }),
  data: ReportedPayment,
});

export const RefundEvent = Type.Object({
  id: Type.String(),
  type: Type.Union([Type.Literal('refund.succeeded'), Type.Literal('refund.failed')]),
  created_at: Type.String({ format: 'date-time' }),
  data: Type.Object({ ...Transaction.properties, refund: Refund }),
});

export const WebhookEvent = Type.Union([TransactionEvent, PaymentEvent, RefundEvent]);

export function ok<T extends TSchema>(data: T) {
  return Type.Object({ success: Type.Literal(true), data });
}

// cstatus documents the union of its two answers, but each handler path knows which one it sends:
// serialising with that shape alone spares ajv checking the union (and each nullable field) per response.
// cqris answers StatusOneBody too, for the nullable fields.
export const StatusOneBody = serializationSchema(ok(Transaction));
export const StatusPageBody = serializationSchema(ok(TransactionPage));
export const RefundOneBody = serializationSchema(ok(RefundedTransaction));
