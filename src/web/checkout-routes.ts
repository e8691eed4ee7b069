import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../domain/errors.js';
import type { Deps } from '../services/deps.js';
import { getCheckout } from '../services/transactions/get-checkout.js';
import { getCheckoutStatus } from '../services/transactions/get-checkout-status.js';
import { simulatePayment } from '../payment-sources/simulator.js';
import { getTransactionById } from '../services/transactions/get-transaction-by-id.js';
import type { StatusWatch } from '../services/transactions/status-watch.js';
import { parseTrxid } from '../http/params.js';
import { renderCheckoutPage, type CheckoutAssetUrls } from './checkout-page.js';
import { checkoutAssets } from './static-assets.js';
import { checkoutEventRoutes } from './checkout-events.js';
import { Params, Segment, pageSchema } from './forms.js';

const trxidParams = pageSchema({ params: Params({ trxid: Segment() }) });

const CSP =
  "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// The payer's pages. Public: the transaction id (130 random bits) is the capability, as for the QR image.
export async function checkoutRoutes(untyped: FastifyInstance, deps: Deps, watch: StatusWatch): Promise<void> {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  const hide = { hide: true };

  // Each with its own Cache-Control, which the app's onSend hook leaves in place of its no-store.
  const assets = checkoutAssets();
  for (const asset of [assets.payerCss, assets.css, assets.commonJs, assets.js, assets.icon]) {
    app.get(asset.url, { schema: hide }, (_req, reply) => {
      reply.header('Cache-Control', asset.cacheControl).type(asset.type).send(asset.body);
    });
  }
  // Pages name their icon, but a browser still asks /favicon.ico for anything else it shows (a JSON
  // answer, the API docs, a bookmark): the same icon, rather than a 404 in every log.
  app.get('/favicon.ico', { schema: hide }, (_req, reply) => {
    reply.header('Cache-Control', assets.icon.cacheControl).type(assets.icon.type).send(assets.icon.body);
  });
  const urls: CheckoutAssetUrls = {
    payerCss: assets.payerCss.url,
    css: assets.css.url,
    commonJs: assets.commonJs.url,
    js: assets.js.url,
    icon: assets.icon.url,
  };

  app.get('/checkout/:trxid', { schema: trxidParams }, async (request, reply) => {
    const view = await getCheckout(deps, parseTrxid(request.params.trxid, true)!);
    reply
      .header('Content-Security-Policy', CSP)
      .header('X-Frame-Options', 'DENY')
      .header('Referrer-Policy', 'no-referrer');
    return reply.type('text/html; charset=utf-8').send(renderCheckoutPage(view, urls));
  });

  // What a page polls when it has no live stream (refused, or dropped): one batched read by id.
  app.get('/checkout/:trxid/status', { schema: trxidParams }, async (request) => ({
    success: true,
    data: await getCheckoutStatus(deps, parseTrxid(request.params.trxid, true)!),
  }));

  app.post('/checkout/:trxid/simulate', { schema: trxidParams }, async (request) => {
    const tx = await getTransactionById(deps, parseTrxid(request.params.trxid, true)!);
    if (tx.mode !== 'test')
      throw new AppError('test_mode_only', 'only sandbox transactions can be paid from this page');
    await simulatePayment(deps, { merchantId: tx.merchant_id, mode: 'test' }, tx.id);
    return { success: true, data: await getCheckout(deps, tx.id) };
  });

  checkoutEventRoutes(untyped, deps, watch);
}
