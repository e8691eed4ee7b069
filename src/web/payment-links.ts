// Payment links, for merchants without code: /pay/{handle} asks the payer for an amount, and
// /pay/{handle}/{amount} starts a live transaction and sends the payer to its checkout page. Public (no
// login, no key), so they are limited per client address and answer every failure with an HTML page in
// the payer's language: never JSON, never a stack trace.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientAddressKey } from '../domain/client-address.js';
import { parseEmail } from '../domain/email.js';
import { AppError } from '../domain/errors.js';
import { formatRupiah, parseAmount } from '../domain/money.js';
import { handleFromPath } from '../domain/payment-link.js';
import type { Deps } from '../services/deps.js';
import { createLinkTransaction } from '../services/payment-links/create-link-transaction.js';
import { openPaymentLink, type OpenedLink } from '../services/payment-links/open-link.js';
import { statusFor } from '../wire/error-status.js';
import { parseToken } from '../http/params.js';
import { pickLang, translator, type Lang } from '../presentation/messages.js';
import { paymentLinkLimit } from './payment-link-limit.js';
import { renderPayForm, renderPayProblem, type LinkMerchant, type PayAssets } from './payment-link-pages.js';
import { words } from './payment-link-pages.words.js';
import { checkoutAssets, payLinkCss } from './static-assets.js';
import { Params, Query, Raw, Segment, pageSchema } from './forms.js';

// As strict as the checkout page's; the only form posts (GET) to this site, and there is no script.
const CSP =
  "default-src 'none'; img-src 'self'; style-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export async function paymentLinkRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const { config } = deps;
  const limit = paymentLinkLimit(config, deps.now, deps.logger);
  if (limit) app.addHook('onClose', () => limit.close());
  const css = payLinkCss();
  const shared = checkoutAssets();
  const assets: PayAssets = { payerCss: shared.payerCss.url, css: css.url, icon: shared.icon.url };
  // As the API: the unique code is part of the total, so the largest amount leaves room for the smallest code.
  const amountLimits = { min: config.amountMin, max: config.amountMax - config.uniqueCodeMin };

  const langOf = (request: FastifyRequest): Lang => pickLang(undefined, request.headers['accept-language']);
  const merchantOf = (link: Exclude<OpenedLink, { state: 'unknown' }>): LinkMerchant => ({
    handle: link.merchant.payment_link_handle!,
    name: link.merchant.merchant_name,
    city: link.merchant.merchant_city,
  });
  // The headers go with each page rather than in a hook: a request the app refuses before this scope's
  // hooks run (an over-long URL) still gets its page here, and must get them too.
  const send = (reply: FastifyReply, status: number, page: string) =>
    reply
      .code(status)
      .header('Content-Security-Policy', CSP)
      .header('X-Frame-Options', 'DENY')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(page);

  /** The words for a refused amount, e-mail or ref, in the payer's language. */
  function refusal(lang: Lang, err: AppError): string {
    const t = translator(words, lang);
    switch (err.code) {
      case 'amount_required':
        return t('amountRequired');
      case 'invalid_amount':
        return t('invalidAmount');
      case 'amount_out_of_range':
        return t('amountRange', { min: formatRupiah(amountLimits.min), max: formatRupiah(amountLimits.max) });
      case 'invalid_email':
        return t('invalidEmail');
      case 'ref_conflict':
        return t('refConflict');
      default:
        return t('invalidRef');
    }
  }

  /** A refused or failed request as a page; unknown faults are logged and shown only by request id. */
  function problemPage(
    request: FastifyRequest,
    reply: FastifyReply,
    err: unknown,
    merchant: LinkMerchant | null,
  ): FastifyReply {
    const lang = langOf(request);
    const t = translator(words, lang);
    const appError = err instanceof AppError ? err : null;
    const status = appError ? statusFor(appError.code) : ((err as FastifyError).statusCode ?? 500);
    if (appError?.retryAfter !== undefined) reply.header('Retry-After', String(appError.retryAfter));
    if (status === 404)
      return send(reply, 404, renderPayProblem(lang, assets, t('unknownTitle'), t('unknownText'), null));
    // The merchant's links have made as many transactions today as PAYMENT_LINK_DAILY_CREATES allows (never
    // the merchant's API quota, which links do not count against); Retry-After is midnight WIB.
    if (appError?.code === 'quota_exceeded' && merchant) {
      return send(
        reply,
        429,
        renderPayProblem(lang, assets, t('quotaTitle'), t('quotaText', { merchant: merchant.name }), null),
      );
    }
    if (appError && (status === 400 || status === 409)) {
      return send(reply, status, renderPayProblem(lang, assets, t('invalidTitle'), refusal(lang, appError), merchant));
    }
    // Anything else the client got wrong (a URL too long, a request Fastify could not take).
    if (status >= 400 && status < 500)
      return send(reply, status, renderPayProblem(lang, assets, t('invalidTitle'), t('invalidLink'), merchant));
    if (status === 503) return send(reply, 503, renderPayProblem(lang, assets, t('busyTitle'), t('busy'), merchant));
    request.log.error({ err }, 'payment link failed');
    return send(
      reply,
      500,
      renderPayProblem(lang, assets, t('failedTitle'), t('failed', { id: request.id }), merchant),
    );
  }

  /** The link's merchant, or null once the page that says there is none (unknown or disabled) is sent. */
  async function openOrAnswer(
    request: FastifyRequest,
    reply: FastifyReply,
    rawHandle: string,
  ): Promise<{ id: string; merchant: LinkMerchant } | null> {
    const lang = langOf(request);
    const t = translator(words, lang);
    const handle = handleFromPath(rawHandle);
    const link: OpenedLink = handle === null ? { state: 'unknown' } : await openPaymentLink(deps, handle);
    if (link.state === 'unknown') {
      send(reply, 404, renderPayProblem(lang, assets, t('unknownTitle'), t('unknownText'), null));
      return null;
    }
    const merchant = merchantOf(link);
    if (link.state === 'disabled' || link.state === 'awaiting_approval') {
      const [title, text] =
        link.state === 'disabled'
          ? (['disabledTitle', 'disabledText'] as const)
          : (['waitingTitle', 'waitingText'] as const);
      send(reply, 404, renderPayProblem(lang, assets, t(title), t(text, { merchant: merchant.name }), null));
      return null;
    }
    return { id: link.merchant.id, merchant };
  }

  await app.register(
    async (untyped) => {
      const scope = untyped.withTypeProvider<TypeBoxTypeProvider>();
      scope.setErrorHandler((err, request, reply) => problemPage(request, reply, err, null));
      scope.setNotFoundHandler((request, reply) =>
        problemPage(request, reply, new AppError('not_found', 'no such payment link'), null),
      );

      scope.get(css.url.slice('/pay'.length), { schema: { hide: true } }, (_request, reply) => {
        reply.header('Cache-Control', css.cacheControl).type(css.type).send(css.body);
      });

      // The form; with ?amount= (the form sent), checks it and goes on to the amount's own link.
      scope.get(
        '/:handle',
        {
          schema: pageSchema({
            params: Params({ handle: Segment() }),
            querystring: Query({ amount: Raw(), email: Raw() }),
          }),
        },
        async (request, reply) => {
          const opened = await openOrAnswer(request, reply, request.params.handle);
          if (!opened) return reply;
          const { merchant } = opened;
          const lang = langOf(request);
          const { amount: rawAmount, email: rawEmail } = request.query;
          if (rawAmount === undefined)
            return send(reply, 200, renderPayForm(lang, assets, merchant, { amount: '', email: '' }, null));
          const typed = {
            amount: typeof rawAmount === 'string' ? rawAmount : '',
            email: typeof rawEmail === 'string' ? rawEmail : '',
          };
          try {
            const amount = parseAmount(typedAmount(rawAmount), amountLimits);
            // The form sends an empty e-mail field when the payer left it empty: that is no e-mail.
            const email = rawEmail === '' ? null : parseEmail(rawEmail);
            const to = `/pay/${merchant.handle}/${amount}${email === null ? '' : `?email=${encodeURIComponent(email)}`}`;
            return reply.redirect(to, 303);
          } catch (err) {
            if (!(err instanceof AppError)) throw err;
            return send(reply, 400, renderPayForm(lang, assets, merchant, typed, refusal(lang, err)));
          }
        },
      );

      // Starts the payment: idempotent for a while (create-link-transaction.ts), limited per address.
      scope.get(
        '/:handle/:amount',
        {
          schema: pageSchema({
            params: Params({ handle: Segment(), amount: Segment() }),
            querystring: Query({ email: Raw(), ref: Raw() }),
          }),
          exposeHeadRoute: false,
        },
        async (request, reply) => {
          const clientKey = clientAddressKey(request.ip);
          if (limit) {
            const taken = await limit.take(clientKey);
            if (!taken.allowed) {
              const t = translator(words, langOf(request));
              reply.header('Retry-After', String(taken.retryAfter));
              return send(
                reply,
                429,
                renderPayProblem(
                  langOf(request),
                  assets,
                  t('tooManyTitle'),
                  t('tooMany', { seconds: taken.retryAfter }),
                  null,
                ),
              );
            }
          }
          const opened = await openOrAnswer(request, reply, request.params.handle);
          if (!opened) return reply;
          const { id: merchantId, merchant } = opened;
          try {
            const amount = parseAmount(request.params.amount, amountLimits);
            const email = parseEmail(request.query.email);
            const ref = parseToken(request.query.ref, 'ref', 64);
            const tx = await createLinkTransaction(deps, {
              merchantId,
              handle: merchant.handle,
              amount,
              email,
              ref,
              clientKey,
            });
            return reply.redirect(`/checkout/${tx.id}`, 303);
          } catch (err) {
            return problemPage(request, reply, err, merchant);
          }
        },
      );

      // Creating on GET means HEAD must not: link checkers send HEAD freely.
      scope.head(
        '/:handle/:amount',
        { schema: pageSchema({ params: Params({ handle: Segment(), amount: Segment() }) }) },
        (_request, reply) => {
          reply.code(405).header('Allow', 'GET').send();
        },
      );
    },
    { prefix: '/pay' },
  );
}

/**
 * What a payer typed, made canonical where it is unambiguous: "Rp 25.000" and "25,000" are 25000 (the
 * rupiah has no minor unit in use, so dots and commas between groups of three are thousands). Anything
 * else goes to parseAmount as it is, which explains what is wrong with it.
 */
export function typedAmount(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  const text = raw
    .trim()
    .replace(/^rp\.?\s*/i, '')
    .replace(/\s+/g, '');
  return /^\d{1,3}([.,])\d{3}(\1\d{3})*$/.test(text) ? text.replace(/[.,]/g, '') : text;
}
