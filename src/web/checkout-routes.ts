import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.js';
import type { Deps } from '../services/deps.js';
import { getCheckout, getCheckoutStatus } from '../services/get-checkout.js';
import { simulatePayment } from '../sources/simulator.js';
import { getTransactionById } from '../services/get-transaction.js';
import type { StatusWatch } from '../services/status-watch.js';
import { parseTrxid } from '../http/params.js';
import { CHECKOUT_CSS, CHECKOUT_ICON, renderCheckoutPage } from './checkout-page.js';
import { CHECKOUT_JS } from './checkout-client.js';
import { checkoutEventRoutes } from './checkout-events.js';

const CSP = "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// The payer's pages. Public: the transaction id (130 random bits) is the capability, as for the QR image.
export async function checkoutRoutes(app: FastifyInstance, deps: Deps, watch: StatusWatch): Promise<void> {
  const hide = { hide: true };

  app.get('/checkout/assets/checkout.css', { schema: hide }, async (_req, reply) => reply.type('text/css; charset=utf-8').send(CHECKOUT_CSS));
  app.get('/checkout/assets/checkout.js', { schema: hide }, async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').send(CHECKOUT_JS),
  );
  // Declared by the page, so browsers do not ask for /favicon.ico (a 404) instead.
  app.get('/checkout/assets/icon.svg', { schema: hide }, async (_req, reply) => reply.type('image/svg+xml').send(CHECKOUT_ICON));

  app.get<{ Params: { trxid: string } }>('/checkout/:trxid', { schema: hide }, async (request, reply) => {
    const view = await getCheckout(deps, parseTrxid(request.params.trxid, true)!);
    reply.header('Content-Security-Policy', CSP).header('X-Frame-Options', 'DENY').header('Referrer-Policy', 'no-referrer');
    return reply.type('text/html; charset=utf-8').send(renderCheckoutPage(view));
  });

  // What a page polls when it has no live stream (refused, or dropped): one batched read by id.
  app.get<{ Params: { trxid: string } }>('/checkout/:trxid/status', { schema: hide }, async (request) => ({
    success: true,
    data: await getCheckoutStatus(deps, parseTrxid(request.params.trxid, true)!),
  }));

  app.post<{ Params: { trxid: string } }>('/checkout/:trxid/simulate', { schema: hide }, async (request) => {
    const tx = await getTransactionById(deps, parseTrxid(request.params.trxid, true)!);
    if (tx.mode !== 'test') throw new AppError('test_mode_only', 'only sandbox transactions can be paid from this page');
    await simulatePayment(deps, { merchantId: tx.merchant_id, mode: 'test' }, tx.id);
    return { success: true, data: await getCheckout(deps, tx.id) };
  });

  checkoutEventRoutes(app, deps, watch);
}
