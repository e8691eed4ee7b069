import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusOneBody, StatusPageBody, Transaction, TransactionPage, ok } from '../../src/http/schemas.js';
import { sendSerialized, serializationSchema } from '../../src/http/serialization.js';
import type { TransactionView } from '../../src/domain/transaction.js';

// cstatus documents (and used to serialise with) the union of its two answers; it now serialises each
// answer with its own shape. The bytes must be the same as the union's, for every valid answer.

const text = fc.string({ unit: 'binary', maxLength: 40 });
const iso = fc
  .date({ min: new Date(0), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
const int = fc.integer({ min: 0, max: 10_000_000 });

const payment = fc.record({
  id: text,
  source: text,
  amount: int,
  paid_at: iso,
  reference: fc.option(text),
  issuer: fc.option(text),
  payer_name: fc.option(text),
});

const refund = fc.record({
  id: text,
  amount: int,
  status: fc.constantFrom('pending', 'succeeded', 'failed' as const),
  reason: text,
  created_at: iso,
  completed_at: fc.option(iso),
  reference: fc.option(text),
  recorded: fc.boolean(),
  error_code: fc.option(text),
});

const view: fc.Arbitrary<TransactionView> = fc
  .record({
    trxid: text,
    status: fc.constantFrom('pending', 'paid', 'expired', 'cancelled' as const),
    mode: fc.constantFrom('test', 'live' as const),
    amount: int,
    unique_code: int,
    total_amount: int,
    currency: text,
    email: fc.option(text),
    ref: fc.option(text),
    qris: text,
    qr_image_url: text,
    qr_image_svg_url: text,
    qr_image: fc.option(text),
    checkout_url: text,
    created_at: iso,
    expires_at: iso,
    paid_at: fc.option(iso),
    paid_late: fc.boolean(),
    cancelled_at: fc.option(iso),
    amount_paid: int,
    underpaid: int,
    overpaid: int,
    refunded_amount: int,
    refund_status: fc.constantFrom('none', 'partial', 'full' as const),
    refunds: fc.array(refund, { maxLength: 3 }),
    payment: fc.option(payment),
  })
  .map(({ qr_image, ...rest }) => (qr_image === null ? rest : { ...rest, qr_image }) as TransactionView);

const page = fc.record({
  items: fc.array(view, { maxLength: 4 }),
  next_cursor: fc.option(text),
  has_more: fc.boolean(),
});

describe('cstatus answers serialised with their own shape', () => {
  let app: FastifyInstance;
  let current: unknown;
  beforeAll(async () => {
    app = Fastify();
    // The reference: Fastify serialising with the documented union, as the route did before.
    app.get(
      '/union',
      { schema: { response: { 200: ok(Type.Union([Transaction, TransactionPage])) } } },
      async () => current,
    );
    app.get('/one', async (_req, reply) => sendSerialized(reply, StatusOneBody, current as never));
    app.get('/page', async (_req, reply) => sendSerialized(reply, StatusPageBody, current as never));
    await app.ready();
  });
  afterAll(async () => app.close());

  async function both(path: '/one' | '/page', body: unknown) {
    current = body;
    const reference = await app.inject({ url: '/union' });
    const fast = await app.inject({ url: path });
    return { reference, fast };
  }

  it('one transaction: the same bytes and content type as the union', async () => {
    await fc.assert(
      fc.asyncProperty(view, async (data) => {
        const { reference, fast } = await both('/one', { success: true, data });
        expect(reference.statusCode).toBe(200);
        expect(fast.statusCode).toBe(200);
        expect(fast.body).toBe(reference.body);
        expect(fast.headers['content-type']).toBe(reference.headers['content-type']);
      }),
      { numRuns: 300 },
    );
  });

  it('a page: the same bytes and content type as the union', async () => {
    await fc.assert(
      fc.asyncProperty(page, async (data) => {
        const { reference, fast } = await both('/page', { success: true, data });
        expect(reference.statusCode).toBe(200);
        expect(fast.body).toBe(reference.body);
        expect(fast.headers['content-type']).toBe(reference.headers['content-type']);
      }),
      { numRuns: 150 },
    );
  });
});

describe('serializationSchema', () => {
  it('writes T | null as a type list and copies everything else in order', () => {
    const schema = Type.Object({
      a: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'd' }),
      b: Type.Union([Type.Object({ x: Type.Integer() }), Type.Null()]),
      c: Type.Union([Type.String(), Type.Number()]),
      d: Type.Union([Type.Null(), Type.Boolean()]),
      e: Type.Array(Type.Union([Type.String(), Type.Null()])),
    });
    const out = serializationSchema(schema) as { properties: Record<string, Record<string, unknown>> };
    expect(Object.keys(out.properties)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(out.properties.a).toEqual({ description: 'd', type: ['string', 'null'], format: 'date-time' });
    expect(out.properties.b).toMatchObject({ type: ['object', 'null'], properties: { x: { type: 'integer' } } });
    expect(out.properties.b!.anyOf).toBeUndefined();
    expect(out.properties.c).toEqual({ anyOf: [{ type: 'string' }, { type: 'number' }] });
    expect(out.properties.d).toEqual({ type: ['boolean', 'null'] });
    expect(out.properties.e).toEqual({ type: 'array', items: { type: ['string', 'null'] } });
  });

  it('leaves the documented schemas untouched', () => {
    const before = JSON.stringify(Transaction);
    serializationSchema(ok(Transaction));
    expect(JSON.stringify(Transaction)).toBe(before);
    expect(JSON.stringify(Transaction)).toContain('anyOf');
  });
});
