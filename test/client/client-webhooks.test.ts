// The client's verifyWebhook on real deliveries of a real gateway process, by the Standard Webhooks
// headers and by the older X-Signature; and the events themselves, checked against the server's
// WebhookEvent schema that the client's types are generated from.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Webhook } from 'standardwebhooks';
import { QrisGatewayClient, verifyWebhook, WebhookVerificationError } from '@qris-gateway/client';
import { startSeededGateway, type SeededGateway } from '../helpers/seeded-gateway.js';
import { Receiver, type ReceivedRequest } from '../helpers/receiver.js';
import { addWebhookEndpoint } from '../../src/services/webhooks/add-webhook-endpoint.js';
import { PaymentEvent, RefundEvent, TransactionEvent } from '../../src/http/schemas.js';

let gateway: SeededGateway;
let receiver: Receiver;
let secret: string;
let client: QrisGatewayClient;

beforeAll(async () => {
  gateway = await startSeededGateway();
  receiver = await Receiver.start();
  secret = (await addWebhookEndpoint(gateway.deps, { merchantId: gateway.merchant.id, url: receiver.url() })).secret;
  client = new QrisGatewayClient({ baseUrl: gateway.url, apiKey: gateway.testKey });
}, 180_000);

afterAll(async () => {
  await receiver?.close();
  await gateway?.stop();
});

async function deliveryOf(type: string, trxid: string): Promise<ReceivedRequest> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = receiver.requests.find((r) => r.headers['x-event-type'] === type && r.body.includes(trxid));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${type} delivery for ${trxid}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const headersOf = (r: ReceivedRequest) => r.headers as Record<string, string>;

function rejects(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return (err as Error).message;
  }
  throw new Error('verifyWebhook accepted it');
}

describe('verifyWebhook on real deliveries', () => {
  let paid: ReceivedRequest;
  let cancelled: ReceivedRequest;
  let unmatched: ReceivedRequest;
  let refunded: ReceivedRequest;

  beforeAll(async () => {
    const a = await client.createQris({ amount: 61_000 });
    await client.simulatePayment(a.trxid);
    // A part of it refunded through the client: refund.succeeded.
    const refund = await client.refund(a.trxid, { amount: 1000, reason: 'one item out of stock', reference: 'TRF-9' });
    expect(refund.refund).toMatchObject({ amount: 1000, status: 'succeeded', recorded: true, reference: 'TRF-9' });
    expect(refund.refunded_amount).toBe(1000);
    expect((await client.getStatus(a.trxid)).refunds.map((r) => r.id)).toEqual([refund.refund.id]);
    const b = await client.createQris({ amount: 62_000 });
    await client.cancel(b.trxid);
    // A payment of another sum matches nothing: payment.unmatched.
    const c = await client.createQris({ amount: 63_000 });
    await client.simulatePayment(c.trxid, { amount: 1234 });
    [paid, cancelled, unmatched, refunded] = await Promise.all([
      deliveryOf('transaction.paid', a.trxid),
      deliveryOf('transaction.cancelled', b.trxid),
      deliveryOf('payment.unmatched', c.trxid),
      deliveryOf('refund.succeeded', a.trxid),
    ]);
  }, 60_000);

  it('returns each event, typed, by the Standard Webhooks headers; the standardwebhooks package agrees', () => {
    for (const delivery of [paid, cancelled, unmatched, refunded]) {
      const event = verifyWebhook(delivery.body, headersOf(delivery), secret);
      expect(event).toEqual(JSON.parse(delivery.body));
      expect(delivery.headers['webhook-id']).toBe(event.id);
      expect(new Webhook(secret).verify(delivery.body, headersOf(delivery))).toEqual(event);
    }
    const event = verifyWebhook(paid.body, headersOf(paid), secret);
    if (event.type === 'payment.unmatched') throw new Error('expected a transaction event');
    expect(event.data.status).toBe('paid');
  });

  it('verifies by X-Signature alone when the standard headers are absent (a receiver behind a proxy that drops them)', () => {
    const { 'webhook-id': _id, 'webhook-timestamp': _t, 'webhook-signature': _s, ...legacy } = headersOf(paid);
    expect(legacy['x-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyWebhook(paid.body, legacy, secret).id).toBe(JSON.parse(paid.body).id);
    expect(rejects(() => verifyWebhook(paid.body.replace('"paid"', '"PAID"'), legacy, secret))).toContain(
      'X-Signature',
    );
  });

  it('refuses an altered body, another secret, a changed id, an old delivery and a missing signature', () => {
    const headers = headersOf(paid);
    rejects(() => verifyWebhook(paid.body.replace(/"amount":(\d+)/, '"amount":1$1'), headers, secret));
    rejects(() => verifyWebhook(paid.body, headers, `whsec_${Buffer.alloc(32, 7).toString('base64')}`));
    rejects(() => verifyWebhook(paid.body, { ...headers, 'webhook-id': 'evt_another' }, secret));
    expect(rejects(() => verifyWebhook(paid.body, headers, secret, { now: Date.now() + 10 * 60_000 }))).toContain(
      'tolerance',
    );
    rejects(() => verifyWebhook(paid.body, { 'content-type': 'application/json' }, secret));
    // Bytes work as well as text, and a Headers object as well as Node's header record.
    expect(verifyWebhook(Buffer.from(paid.body), new Headers(headers), secret).id).toBe(headers['webhook-id']);
  });

  it('accepts several secrets while one is rotated, and refuses a secret that is not whsec_ + base64', () => {
    const old = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    expect(verifyWebhook(paid.body, headersOf(paid), [old, secret]).id).toBe(headersOf(paid)['webhook-id']);
    expect(() => verifyWebhook(paid.body, headersOf(paid), 'whsec_not base64!')).toThrow(TypeError);
    expect(() => verifyWebhook(paid.body, headersOf(paid), [])).toThrow(TypeError);
  });

  it("verifies what the standardwebhooks package signs, with the gateway's old-form secrets too", () => {
    const body = JSON.stringify({
      id: 'evt_1',
      type: 'transaction.expired',
      created_at: new Date().toISOString(),
      data: {},
    });
    for (const key of [secret, 'whsec_abcdefghijklmnopqrstuvwxyzABCDEF']) {
      const at = new Date();
      const headers = {
        'webhook-id': 'evt_1',
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(key).sign('evt_1', at, body),
      };
      expect(verifyWebhook(body, headers, key).id).toBe('evt_1');
    }
  });

  it('every delivered event is exactly what the WebhookEvent schema says: no field missing, none extra', () => {
    // TypeBox checks formats only once told what they are: the API's times are ISO 8601 in UTC.
    if (!FormatRegistry.Has('date-time'))
      FormatRegistry.Set(
        'date-time',
        (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(v) && !Number.isNaN(Date.parse(v)),
      );
    for (const delivery of [paid, cancelled, unmatched, refunded]) {
      const event = JSON.parse(delivery.body) as { type: string };
      const schema =
        event.type === 'payment.unmatched'
          ? PaymentEvent
          : event.type.startsWith('refund.')
            ? RefundEvent
            : TransactionEvent;
      expect([...Value.Errors(schema, event)].map((e) => `${e.path}: ${e.message}`)).toEqual([]);
      expect(Value.Clean(schema, structuredClone(event))).toEqual(event);
    }
  });
});
