import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { html } from '../../../domain/html.js';
import { formatRupiah } from '../../../domain/money.js';
import { HANDLE_MAX, handleProblem, paymentLinkUrl } from '../../../domain/payment-link.js';
import type { Deps } from '../../../services/deps.js';
import { getPaymentLink } from '../../../services/payment-links/get-payment-link.js';
import {
  LINKS_PAGE_SIZE,
  listPaymentLinks,
  type MerchantLinkRow,
} from '../../../services/payment-links/list-payment-links.js';
import { setPaymentLinkHandle } from '../../../services/payment-links/set-handle.js';
import { renderQrPng } from '../../../qr/qr-png.js';
import { Form, Params, Query, Segment, Text, pageSchema } from '../../forms.js';
import { consolePage, type ConsolePage } from '../context.js';
import { translator, type Translate } from '../../../presentation/messages.js';
import { redirectWithNotice, renderNotice, takeNotice } from '../notice.js';
import { words } from './links.words.js';

const EXAMPLE_AMOUNT = 25_000;

type Word = keyof typeof words.en;
type Problem = 'required' | 'length' | 'characters' | 'start' | 'reserved' | 'taken';

/** How much of a refused handle the form shows again. */
const TYPED_MAX = 100;
/**
 * The handle a refused save typed, which the form shows again after the redirect. It travels as the
 * notice beside it does (notice.ts): in a signed, one-time cookie, never in the URL, so a crafted link
 * cannot put words in the form. Its path is the merchant's page, the one page that reads it.
 */
const TYPED_COOKIE = 'qg_link_typed';
const TYPED_SECONDS = 60;

const merchantParams = Params({ merchantId: Segment() });

/** /dashboard/links: each merchant the viewer may see, its payment link, and the link's printable QR. */
export async function linkRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const base = deps.config.publicBaseUrl;

  app.get('/links', { schema: pageSchema({ querystring: Query({ page: Text() }) }) }, async (request, reply) => {
    const page = consolePage(request, reply);
    const t = translator(words, page.lang);
    const number = /^[1-9][0-9]{0,5}$/.test(request.query.page ?? '') ? Number(request.query.page) : 1;
    const { rows, total } = await listPaymentLinks(deps, page.viewer, number);
    const pager = html`<nav class="pager">${number > 1 ? html`<a href="/dashboard/links?page=${number - 1}">${t('newer')}</a>` : ''}${
      number * LINKS_PAGE_SIZE < total ? html`<a href="/dashboard/links?page=${number + 1}">${t('older')}</a>` : ''
    }</nav>`;
    const body = html`<h1>${t('title')}</h1>
<p class="muted">${t('intro')}</p>
${
  rows.length === 0
    ? html`<p class="card muted">${t('noMerchants')}</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th>${t('merchant')}</th><th>${t('link')}</th><th class="hide-narrow">${t('state')}</th><th><span class="hide-narrow">${t('manage')}</span></th></tr></thead>
<tbody>${rows.map(
        (
          m,
        ) => html`<tr><td data-label="${t('merchant')}">${m.name}<div class="muted mono hide-narrow">${m.id}</div></td>
<td data-label="${t('link')}">${m.payment_link_handle ? html`<span class="mono">/pay/${m.payment_link_handle}</span>` : html`<span class="muted">${t('none')}</span>`}</td>
<td class="hide-narrow" data-label="${t('state')}">${
          m.disabled_at !== null
            ? html`<span class="badge disabled">${t('disabled')}</span>`
            : m.live_approved_at === null
              ? m.live_rejected_at !== null
                ? html`<span class="badge failed">${t('rejected')}</span>`
                : html`<span class="badge pending">${t('waiting')}</span>`
              : ''
        }</td>
<td data-label=""><a href="/dashboard/links/${m.id}">${m.payment_link_handle ? t('manage') : t('setUp')}</a></td></tr>`,
      )}</tbody></table></div>${pager}`
}`;
    return page.send(t('title'), 'links', body);
  });

  app.get('/links/:merchantId', { schema: pageSchema({ params: merchantParams }) }, async (request, reply) => {
    const page = consolePage(request, reply);
    const t = translator(words, page.lang);
    const m = await getPaymentLink(deps, page.viewer, request.params.merchantId);
    const notice = renderNotice(takeNotice(request, reply));
    const typed = takeTyped(request, reply, m.id) ?? m.payment_link_handle ?? '';
    const body = html`<h1>${t('pageTitle', { name: m.name })}</h1>
${notice}
${
  m.disabled_at !== null
    ? html`<p class="notice">${t('disabledNote')}</p>`
    : m.live_approved_at === null
      ? html`<p class="notice">${t(m.live_rejected_at !== null ? 'rejectedNote' : 'waitingNote')}</p>`
      : ''
}
<section class="card">
<form method="post" action="/dashboard/links/${m.id}">
<input type="hidden" name="_csrf" value="${page.csrf}">
<label for="link-handle">${t('handle')}</label>
<input id="link-handle" name="handle" value="${typed}" maxlength="${HANDLE_MAX + 20}" autocomplete="off" autocapitalize="none" spellcheck="false" required aria-describedby="link-handle-hint">
<p class="muted" id="link-handle-hint">${t('handleHint', { base })}</p>
<button type="submit">${t('save')}</button>
</form>
</section>
${m.payment_link_handle ? linkCard(t, m, m.payment_link_handle, base, page.csrf) : ''}
<p><a href="/dashboard/links">${t('back')}</a></p>`;
    return page.send(t('pageTitle', { name: m.name }), 'links', body);
  });

  app.post(
    '/links/:merchantId',
    { schema: pageSchema({ params: merchantParams, body: Form({ handle: Text() }) }) },
    async (request, reply) => {
      const page = consolePage(request, reply);
      const t = translator(words, page.lang);
      const id = request.params.merchantId;
      const back = linkPage(id);
      const typed = request.body.handle ?? '';
      try {
        await setPaymentLinkHandle(deps, page.viewer, id, typed);
        return redirectWithNotice(reply, back, { kind: 'success', text: t('saved') });
      } catch (err) {
        const problem = problemOf(err, typed);
        if (!problem) throw err;
        const shown = typed.slice(0, TYPED_MAX);
        keepTyped(reply, id, shown);
        return redirectWithNotice(reply, back, { kind: 'error', text: t(problem, { handle: shown }) });
      }
    },
  );

  app.post(
    '/links/:merchantId/remove',
    { schema: pageSchema({ params: merchantParams, body: Form({}) }) },
    async (request, reply) => {
      const page = consolePage(request, reply);
      await setPaymentLinkHandle(deps, page.viewer, request.params.merchantId, null);
      return redirectWithNotice(reply, linkPage(request.params.merchantId), {
        kind: 'success',
        text: translator(words, page.lang)('removed'),
      });
    },
  );

  app.get('/links/:merchantId/qr.png', { schema: pageSchema({ params: merchantParams }) }, async (request, reply) => {
    const page = consolePage(request, reply);
    const m = await getPaymentLink(deps, page.viewer, request.params.merchantId);
    if (!m.payment_link_handle) throw new AppError('not_found', 'this merchant has no payment link');
    // Large modules: it is printed and scanned from a counter or a wall.
    const png = renderQrPng(paymentLinkUrl(base, m.payment_link_handle), { scale: 12 });
    return reply.type('image/png').send(png);
  });

  app.get('/links/:merchantId/print', { schema: pageSchema({ params: merchantParams }) }, async (request, reply) =>
    printView(deps, consolePage(request, reply), request.params.merchantId),
  );
}

/** The link, its fixed-amount and ref examples, its QR, and the ways to print or remove it. */
function linkCard(t: Translate<Word>, m: MerchantLinkRow, handle: string, base: string, csrf: string) {
  const url = paymentLinkUrl(base, handle);
  const fixed = paymentLinkUrl(base, handle, EXAMPLE_AMOUNT);
  return html`<section class="card">
<h2>${t('yourLink')}</h2>
<dl class="stacked">
<dt>${t('linkText')}</dt><dd><a class="mono" id="payment-link" href="${url}">${url}</a></dd>
<dt>${t('fixedText', { amount: formatRupiah(EXAMPLE_AMOUNT) })}</dt><dd><a class="mono" href="${fixed}">${fixed}</a></dd>
<dt>${t('refText')}</dt><dd class="mono">${fixed}?ref=ORDER-1001</dd>
</dl>
<p><img class="link-qr" src="/dashboard/links/${m.id}/qr.png" alt="${t('qr', { url })}" width="240" height="240"></p>
<p><a class="button" href="/dashboard/links/${m.id}/print">${t('print')}</a></p>
<form method="post" action="/dashboard/links/${m.id}/remove" data-confirm="${t('removeConfirm')}">
<input type="hidden" name="_csrf" value="${csrf}">
<button type="submit" class="danger">${t('remove')}</button>
</form>
</section>`;
}

/** A sheet with only the QR, the merchant's name and the link when printed (console.css, @media print). */
async function printView(deps: Deps, page: ConsolePage, merchantId: string): Promise<FastifyReply> {
  const t = translator(words, page.lang);
  const m = await getPaymentLink(deps, page.viewer, merchantId);
  if (!m.payment_link_handle) throw new AppError('not_found', 'this merchant has no payment link');
  const url = paymentLinkUrl(deps.config.publicBaseUrl, m.payment_link_handle);
  const body = html`<div class="print-sheet">
<h1>${m.merchant_name}</h1>
<p class="muted">${m.merchant_city}</p>
<img src="/dashboard/links/${m.id}/qr.png" alt="${t('qr', { url })}" width="320" height="320">
<p class="mono">${url}</p>
${(['id', 'en'] as const).map((lang) => {
  const say = translator(words, lang);
  return html`<p lang="${lang}" class="scan"><strong>${say('scan')}</strong><br>${say('scanThen')}</p>`;
})}
</div>
<p class="no-print"><button type="button" data-print>${t('print')}</button> <a href="/dashboard/links/${m.id}">${t('back')}</a></p>`;
  return page.send(t('pageTitle', { name: m.name }), 'links', body);
}

/** Which refusal a failed save was, for the notice; null for anything else (shown as an error page). */
function problemOf(err: unknown, typed: string): Problem | null {
  if (!(err instanceof AppError)) return null;
  if (err.code === 'handle_taken') return 'taken';
  if (err.code !== 'invalid_parameter' || err.param !== 'handle') return null;
  const handle = typed.trim().toLowerCase();
  return handle === '' ? 'required' : (handleProblem(handle) ?? 'characters');
}

/** The merchant's link page: where a save redirects, and the path of the typed-handle cookie. */
const linkPage = (merchantId: string) => `/dashboard/links/${encodeURIComponent(merchantId)}`;

/** Keeps a refused handle for the merchant's form, which the redirect leads to. */
function keepTyped(reply: FastifyReply, merchantId: string, typed: string): void {
  // The merchant's id goes with it, so it fills no other merchant's form; base64url needs no cookie encoding.
  const value = Buffer.from(JSON.stringify([merchantId, typed])).toString('base64url');
  reply.setCookie(TYPED_COOKIE, value, {
    path: linkPage(merchantId),
    httpOnly: true,
    sameSite: 'lax',
    secure: 'auto',
    signed: true,
    maxAge: TYPED_SECONDS,
  });
}

/** The handle a refused save left for this merchant's form, cleared as it is read; null when none (or tampered with). */
function takeTyped(request: FastifyRequest, reply: FastifyReply, merchantId: string): string | null {
  const raw = request.cookies[TYPED_COOKIE];
  if (raw === undefined) return null;
  reply.clearCookie(TYPED_COOKIE, { path: linkPage(merchantId) });
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || unsigned.value === null) return null;
  try {
    const [id, typed] = JSON.parse(Buffer.from(unsigned.value, 'base64url').toString('utf8')) as unknown[];
    return id === merchantId && typeof typed === 'string' ? typed.slice(0, TYPED_MAX) : null;
  } catch {
    return null;
  }
}
