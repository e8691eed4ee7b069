// examples/shop against a real gateway process: an order gets its QRIS, the buyer pays, the gateway's
// webhook marks the order paid, and a repeated delivery of the same event changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { QrisGatewayClient } from '@qris-gateway/client';
import { createShop, type Order } from '../../examples/shop/shop.js';
import { startSeededGateway, type SeededGateway } from '../helpers/seeded-gateway.js';
import { freePort } from '../helpers/processes.js';
import { addWebhookEndpoint } from '../../src/services/webhooks/add-webhook-endpoint.js';
import { resendEvent } from '../../src/services/webhooks/resend-event.js';
import { parseTlv } from '../../src/domain/qris/tlv.js';

const jsQR = jsQRModule.default;

let gateway: SeededGateway;
let shop: ReturnType<typeof createShop>;
let shopUrl: string;
const shipped: string[] = [];
const deliveries: Array<{ status: number; body: string }> = [];

beforeAll(async () => {
  gateway = await startSeededGateway();
  const client = new QrisGatewayClient({ baseUrl: gateway.url, apiKey: gateway.testKey });
  // The webhook endpoint names the shop's address, so the port is chosen first.
  const port = await freePort();
  shopUrl = `http://127.0.0.1:${port}`;
  const { secret } = await addWebhookEndpoint(gateway.deps, {
    merchantId: gateway.merchant.id,
    url: `${shopUrl}/webhooks/qris`,
  });
  shop = createShop({ client, webhookSecret: secret, onPaid: (order) => void shipped.push(order.id) });
  shop.on('request', (req, res) => {
    if (req.url !== '/webhooks/qris') return;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    res.on('finish', () => deliveries.push({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
  });
  await new Promise<void>((resolve) => shop.listen(port, '127.0.0.1', resolve));
}, 180_000);

afterAll(async () => {
  await new Promise((resolve) => shop?.close(resolve));
  await gateway?.stop();
});

async function placeOrder(amount: number): Promise<Order> {
  const res = await fetch(`${shopUrl}/orders`, { method: 'POST', body: JSON.stringify({ amount }) });
  expect(res.status).toBe(201);
  return (await res.json()) as Order;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const orderJson = async (id: string) => (await (await fetch(`${shopUrl}/orders/${id}.json`)).json()) as Order;

describe('the shop example', () => {
  it('shows the QR of the exact total, and marks the order paid once, however often the webhook comes', async () => {
    const order = await placeOrder(25_000);
    expect(order).toMatchObject({ amount: 25_000, status: 'awaiting_payment' });
    expect(order.total).toBeGreaterThan(25_000);

    const page = await (await fetch(`${shopUrl}/orders/${order.id}`)).text();
    expect(page).toContain(`Pay Rp${order.total.toLocaleString('id-ID')}`);
    const png = PNG.sync.read(Buffer.from(await (await fetch(`${shopUrl}/orders/${order.id}/qr.png`)).arrayBuffer()));
    const payload = jsQR(new Uint8ClampedArray(png.data), png.width, png.height)!.data;
    expect(parseTlv(payload).find((f) => f.tag === '54')?.value).toBe(String(order.total));

    // The buyer pays (in the sandbox); the gateway's webhook reaches the shop.
    const buyer = new QrisGatewayClient({ baseUrl: gateway.url, apiKey: gateway.testKey });
    await buyer.simulatePayment(order.trxid);
    expect(
      (
        await until(
          () => orderJson(order.id),
          (o) => o.status === 'paid',
        )
      ).status,
    ).toBe('paid');
    expect(shipped).toEqual([order.id]);

    // The same event again, as after a lost answer or an operator's resend: handled once, answered 2xx.
    const first = deliveries.find((d) => d.body.includes(order.trxid) && d.body.includes('transaction.paid'))!;
    const eventId = (JSON.parse(first.body) as { id: string }).id;
    await resendEvent(gateway.deps, { eventId });
    const again = await until(
      async () => deliveries.filter((d) => d.body.includes(eventId)),
      (list) => list.length >= 2,
    );
    expect(again.map((d) => d.status)).toEqual([200, 200]);
    expect(shipped).toEqual([order.id]);
    expect((await orderJson(order.id)).status).toBe('paid');
  });

  it('refuses a delivery whose signature does not match, and changes nothing', async () => {
    const order = await placeOrder(26_000);
    const forged = JSON.stringify({
      id: 'evt_forged',
      type: 'transaction.paid',
      created_at: new Date().toISOString(),
      data: { ref: order.id, trxid: order.trxid },
    });
    const res = await fetch(`${shopUrl}/webhooks/qris`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'evt_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAA',
      },
      body: forged,
    });
    expect(res.status).toBe(400);
    expect((await orderJson(order.id)).status).toBe('awaiting_payment');
    expect(shipped).not.toContain(order.id);
  });

  it('marks an order cancelled when its transaction is cancelled', async () => {
    const order = await placeOrder(27_000);
    await new QrisGatewayClient({ baseUrl: gateway.url, apiKey: gateway.testKey }).cancel(order.trxid);
    expect(
      (
        await until(
          () => orderJson(order.id),
          (o) => o.status === 'cancelled',
        )
      ).status,
    ).toBe('cancelled');
  });

  it('answers a bad amount with 400, and an amount the gateway refuses with its error code', async () => {
    expect(
      (await fetch(`${shopUrl}/orders`, { method: 'POST', body: JSON.stringify({ amount: 'lots' }) })).status,
    ).toBe(400);
    const res = await fetch(`${shopUrl}/orders`, { method: 'POST', body: JSON.stringify({ amount: 999_999_999 }) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'amount_out_of_range' });
  });
});
