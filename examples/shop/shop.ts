// A minimal shop paid by QRIS: an order gets a QRIS code of its exact amount, the buyer scans it, and the
// gateway's webhook marks the order paid, once, however often the webhook arrives.
//
//   QRIS_GATEWAY_URL=http://127.0.0.1:3000 QRIS_API_KEY=sk_test_... QRIS_WEBHOOK_SECRET=whsec_... \
//     npx tsx examples/shop/shop.ts
//
// Then `curl -X POST localhost:8080/orders -d '{"amount":25000}'`, open the order's page, and point a
// webhook endpoint of the gateway at http://<this host>:8080/webhooks/qris.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { QrisGatewayClient, QrisGatewayError, verifyWebhook, WebhookVerificationError } from '@qris-gateway/client';

export interface Order {
  id: string;
  amount: number;
  status: 'awaiting_payment' | 'paid' | 'expired' | 'cancelled';
  trxid: string;
  /** What the buyer pays: the amount plus the gateway's unique code. */
  total: number;
  checkoutUrl: string;
}

export interface ShopOptions {
  client: QrisGatewayClient;
  webhookSecret: string;
  /** Runs once per paid order: ship it, e-mail the buyer. */
  onPaid?: (order: Order) => void | Promise<void>;
}

export function createShop({ client, webhookSecret, onPaid }: ShopOptions): Server & { orders: Map<string, Order> } {
  // In production these are tables: orders, and handled webhook events with the event id as primary key.
  const orders = new Map<string, Order>();
  const handledEvents = new Set<string>();

  async function createOrder(req: IncomingMessage, res: ServerResponse) {
    const { amount } = JSON.parse((await rawBody(req)).toString('utf8') || '{}') as { amount?: unknown };
    if (typeof amount !== 'number' || !Number.isInteger(amount) || amount <= 0)
      return send(res, 400, { error: 'amount must be whole rupiah' });
    const id = `ord_${randomUUID()}`;
    // The order id is the ref: asking again for the same order returns the same QRIS, never a second one.
    const tx = await client.createQris({ amount, ref: id });
    const order: Order = {
      id,
      amount,
      status: 'awaiting_payment',
      trxid: tx.trxid,
      total: tx.total_amount,
      checkoutUrl: tx.checkout_url,
    };
    orders.set(id, order);
    send(res, 201, order);
  }

  async function receiveWebhook(req: IncomingMessage, res: ServerResponse) {
    // Verify the bytes exactly as they arrived, before parsing them.
    const raw = await rawBody(req);
    let event: ReturnType<typeof verifyWebhook>;
    try {
      event = verifyWebhook(raw, req.headers, webhookSecret);
    } catch (err) {
      if (err instanceof WebhookVerificationError) return send(res, 400, { error: 'invalid signature' });
      throw err;
    }
    // A delivery may come more than once (a retry, a resend): the event id says whether it was handled.
    if (handledEvents.has(event.id)) return send(res, 200, { duplicate: true });
    if (event.type !== 'payment.unmatched') {
      const order = event.data.ref === null ? undefined : orders.get(event.data.ref);
      if (order && order.trxid === event.data.trxid) {
        if (event.type === 'transaction.paid' && order.status !== 'paid') {
          // Paid after a cancel or expiry too (paid_late): the money is there, so the order is paid.
          order.status = 'paid';
          await onPaid?.(order);
        } else if (order.status === 'awaiting_payment') {
          order.status = event.type === 'transaction.expired' ? 'expired' : 'cancelled';
        }
      }
    }
    // Marked only once handled: a crash before this line means the gateway retries, not that it is lost.
    handledEvents.add(event.id);
    send(res, 200, { ok: true });
  }

  async function orderPage(res: ServerResponse, order: Order) {
    const rupiah = `Rp${order.total.toLocaleString('id-ID')}`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<title>Order ${order.id}</title>
<h1>${order.status === 'paid' ? 'Paid, thank you' : `Pay ${rupiah}`}</h1>
${order.status === 'awaiting_payment' ? `<img src="/orders/${order.id}/qr.png" alt="QRIS code" width="300"><p>Scan with any bank or e-wallet app: exactly ${rupiah}.</p>` : ''}`);
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://shop.local');
    const match = /^\/orders\/(ord_[0-9a-f-]{36})(\/qr\.png|\.json)?$/.exec(url.pathname);
    const handle = async () => {
      if (req.method === 'POST' && url.pathname === '/orders') return createOrder(req, res);
      if (req.method === 'POST' && url.pathname === '/webhooks/qris') return receiveWebhook(req, res);
      const order = match ? orders.get(match[1]!) : undefined;
      if (req.method !== 'GET' || !order) return send(res, 404, { error: 'not found' });
      if (match![2] === '.json') return send(res, 200, order);
      if (match![2] === '/qr.png')
        return void res.writeHead(200, { 'content-type': 'image/png' }).end(await client.qrPng(order.trxid));
      return orderPage(res, order);
    };
    handle().catch((err: unknown) => {
      // The gateway's errors carry a stable code and the request id to quote to its operator.
      const detail =
        err instanceof QrisGatewayError ? { error: err.code, request_id: err.requestId } : { error: 'internal' };
      if (!res.headersSent) send(res, err instanceof QrisGatewayError && err.status === 400 ? 400 : 502, detail);
    });
  });
  return Object.assign(server, { orders });
}

function rawBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const client = new QrisGatewayClient({ baseUrl: process.env.QRIS_GATEWAY_URL!, apiKey: process.env.QRIS_API_KEY! });
  const shop = createShop({
    client,
    webhookSecret: process.env.QRIS_WEBHOOK_SECRET!,
    onPaid: (o) => console.log(`order ${o.id} paid: ship it`),
  });
  shop.listen(Number(process.env.PORT ?? 8080), () =>
    console.log(`shop on http://127.0.0.1:${process.env.PORT ?? 8080}`),
  );
}
