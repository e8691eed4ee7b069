// /receipt/{token} (issue 27, section 5): the public receipt of a paid transaction, for the payer the
// cashier shows or sends the link to. No login; the token is the capability. An unknown token, or one
// whose transaction is not paid, is a 404 page, never JSON.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import { statusFor } from '../wire/error-status.js';
import { pickLang, type Lang } from '../presentation/messages.js';
import type { Deps } from '../services/deps.js';
import { getReceipt } from '../services/receipts/get-receipt.js';
import { Params, Query, Segment, Text, pageSchema } from './forms.js';
import { renderReceipt, renderReceiptNotFound, type PaperWidth, type ReceiptAssets } from './receipt-page.js';
import { checkoutAssets, receiptAssets } from './static-assets.js';

// The one script is the print button's, from this site.
const CSP =
  "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export async function receiptRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const own = receiptAssets();
  const assets: ReceiptAssets = { css: own.css.url, js: own.js.url, icon: checkoutAssets().icon.url };
  const langOf = (request: FastifyRequest, asked: string | undefined): Lang =>
    asked === 'id' || asked === 'en' ? asked : pickLang(undefined, request.headers['accept-language']);
  const send = (reply: FastifyReply, status: number, page: string) =>
    reply
      .code(status)
      .header('Content-Security-Policy', CSP)
      .header('X-Frame-Options', 'DENY')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      // The link is a capability: no shared cache keeps its page.
      .header('Cache-Control', 'private, no-store')
      .type('text/html; charset=utf-8')
      .send(page);

  await app.register(
    async (untyped) => {
      const scope = untyped.withTypeProvider<TypeBoxTypeProvider>();
      const problem = (request: FastifyRequest, reply: FastifyReply, err: unknown) => {
        const status = err instanceof AppError ? statusFor(err.code) : ((err as FastifyError).statusCode ?? 500);
        if (status >= 500) request.log.error({ err }, 'receipt failed');
        return send(reply, status, renderReceiptNotFound(langOf(request, undefined), assets));
      };
      scope.setErrorHandler((err, request, reply) => problem(request, reply, err));
      scope.setNotFoundHandler((request, reply) =>
        problem(request, reply, new AppError('not_found', 'no such receipt')),
      );
      for (const asset of [own.css, own.js]) {
        scope.get(asset.url.slice('/receipt'.length), { schema: { hide: true } }, (_request, reply) => {
          reply.header('Cache-Control', asset.cacheControl).type(asset.type).send(asset.body);
        });
      }
      scope.get(
        '/:token',
        {
          schema: pageSchema({
            params: Params({ token: Segment() }),
            querystring: Query({ width: Text(), lang: Text() }),
          }),
        },
        async (request, reply) => {
          const receipt = await getReceipt(deps, request.params.token);
          const width: PaperWidth = request.query.width === '80' ? 80 : 58;
          const lang = langOf(request, request.query.lang);
          return send(reply, 200, renderReceipt(lang, assets, receipt, width, `/receipt/${request.params.token}`));
        },
      );
    },
    { prefix: '/receipt' },
  );
}
