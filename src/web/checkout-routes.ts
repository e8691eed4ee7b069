import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.js';
import type { Deps } from '../services/deps.js';
import { getCheckout } from '../services/get-checkout.js';
import { simulatePayment } from '../sources/simulator.js';
import { getTransactionById } from '../services/get-transaction.js';
import { onStatusChange } from '../services/status-bus.js';
import { parseTrxid } from '../http/params.js';
import { CHECKOUT_CSS, renderCheckoutPage } from './checkout-page.js';
import { CHECKOUT_JS } from './checkout-client.js';

const CSP = "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** How often an open status stream re-reads the transaction when no notification came. */
const POLL_MS = 10_000;

// The payer's pages. Public: the transaction id (130 random bits) is the capability, as for the QR image.
export async function checkoutRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const hide = { hide: true };
  // Open streams are ended before the server closes, or a shutdown would wait for every payer to leave.
  const streams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const close of streams) close();
  });

  app.get('/checkout/assets/checkout.css', { schema: hide }, async (_req, reply) => reply.type('text/css; charset=utf-8').send(CHECKOUT_CSS));
  app.get('/checkout/assets/checkout.js', { schema: hide }, async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').send(CHECKOUT_JS),
  );

  app.get<{ Params: { trxid: string } }>('/checkout/:trxid', { schema: hide }, async (request, reply) => {
    const view = await getCheckout(deps, parseTrxid(request.params.trxid, true)!);
    reply.header('Content-Security-Policy', CSP).header('X-Frame-Options', 'DENY').header('Referrer-Policy', 'no-referrer');
    return reply.type('text/html; charset=utf-8').send(renderCheckoutPage(view));
  });

  app.post<{ Params: { trxid: string } }>('/checkout/:trxid/simulate', { schema: hide }, async (request) => {
    const tx = await getTransactionById(deps, parseTrxid(request.params.trxid, true)!);
    if (tx.mode !== 'test') throw new AppError('test_mode_only', 'only sandbox transactions can be paid from this page');
    await simulatePayment(deps, { merchantId: tx.merchant_id, mode: 'test' }, tx.id);
    return { success: true, data: await getCheckout(deps, tx.id) };
  });

  // Server-sent events: the current status at once, then each change, closing when the status is final.
  // A change is heard from the status bus (this process, or any instance through PostgreSQL NOTIFY); a
  // slow re-read covers what no bus carries (a CLI process on SQLite) and a timer marks the expiry.
  app.get<{ Params: { trxid: string } }>('/checkout/:trxid/events', { schema: hide }, async (request, reply) => {
    const trxid = parseTrxid(request.params.trxid, true)!;
    let last = await getCheckout(deps, trxid);
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      'X-Request-Id': request.id,
    });
    const send = (view: typeof last) => raw.write(`event: status\ndata: ${JSON.stringify({ status: view.status, paid_late: view.paid_late })}\n\n`);
    send(last);
    if (last.status !== 'pending') return void raw.end();

    let checking = false;
    const check = async () => {
      if (checking || raw.writableEnded) return;
      checking = true;
      try {
        const now = await getCheckout(deps, trxid);
        if (now.status !== last.status) send(now);
        last = now;
        if (now.status !== 'pending') close();
      } catch (err) {
        request.log.warn({ err }, 'checkout stream failed');
        close();
      } finally {
        checking = false;
      }
    };
    const unsubscribe = onStatusChange(trxid, () => void check());
    const poll = setInterval(() => {
      raw.write(': keep-alive\n\n');
      void check();
    }, POLL_MS);
    const untilExpiry = Math.max(0, Date.parse(last.expires_at) - deps.now()) + 50;
    const expiry = setTimeout(() => void check(), Math.min(untilExpiry, 2_147_000_000));
    const close = () => {
      unsubscribe();
      clearInterval(poll);
      clearTimeout(expiry);
      streams.delete(close);
      if (!raw.writableEnded) raw.end();
    };
    streams.add(close);
    request.raw.on('close', close);
  });
}
