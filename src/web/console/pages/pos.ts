// The point of sale at /dashboard/pos (issue 27): a keypad for the amount, a charge that makes the
// transaction through the API's own create, the QR of the exact total filling the phone's screen, and a
// paid screen that says the amount aloud. Phone first; installable (a web app manifest and a service
// worker whose offline shell is pos-shell.ts). The script (assets/pos.js) runs the keypad, follows the
// checkout's status stream and speaks; every page still works as plain forms without it.
import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { html, type SafeHtml } from '../../../domain/html.js';
import { formatRupiah } from '../../../domain/money.js';
import { effectiveStatus } from '../../../domain/transaction.js';
import { paymentAnnouncement, speechLang } from '../../../domain/rupiah-words.js';
import { formatTime } from '../../../presentation/format.js';
import { translator, type Lang } from '../../../presentation/messages.js';
import { qrPngDataUrl } from '../../../qr/qr-png.js';
import type { Deps } from '../../../services/deps.js';
import { getVisibleMerchant } from '../../../services/merchants/get-visible-merchant.js';
import { chargeSale, NOTE_MAX } from '../../../services/pos/charge-sale.js';
import { getSale } from '../../../services/pos/get-sale.js';
import { makeReceiptLink } from '../../../services/receipts/make-receipt-link.js';
import { mayOpen } from '../../../domain/viewer.js';
import { noLiveSourceText } from '../../../presentation/shared-texts.js';
import { visibleSaleModes } from '../../../services/pos/visible-sale-modes.js';
import type { SandboxReason } from '../../../domain/pos-sale-mode.js';
import { simulatePayment } from '../../../payment-sources/simulator.js';
import { todaysSales } from '../../../services/pos/todays-sales.js';
import { cancelTransaction } from '../../../services/transactions/cancel-transaction.js';
import type { TransactionsTable } from '../../../storage/schema.js';
import { Form, Params, Segment, Text, pageSchema } from '../../forms.js';
import { posAssets } from '../../static-assets.js';
import { consolePage, type ConsolePage } from '../context.js';
import { redirectWithNotice, renderNotice, takeNotice } from '../notice.js';
import { posPublicRoutes } from './pos-shell.js';
import { statusBadge } from './transaction-status.js';
import { words } from './pos.words.js';

type T = ReturnType<typeof translator<keyof typeof words.en>>;

/** The point of sale's additions to the console's head: its manifest, style and script. */
export function posHead(): SafeHtml {
  const assets = posAssets();
  return html`<link rel="manifest" href="/dashboard/pos/manifest.webmanifest">
<meta name="theme-color" content="#1a5276">
<link rel="apple-touch-icon" href="/dashboard/pos/icon-192.png">
<link rel="stylesheet" href="${assets.css.url}">
<script src="${assets.commonJs.url}" defer></script>
<script src="${assets.js.url}" defer></script>`;
}

export async function posRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  posPublicRoutes(scope);

  const saleForm = Form({ merchant: Text(), amount: Text(), note: Text(), key: Text() });

  app.get('/pos', { schema: pageSchema({}) }, async (request, reply) =>
    keypadPage(deps, request, reply, renderNotice(takeNotice(request, reply))),
  );

  app.post('/pos', { schema: pageSchema({ body: saleForm }) }, async (request, reply) => {
    const page = consolePage(request, reply);
    const body = request.body;
    try {
      const sale = await chargeSale(deps, page.viewer, {
        merchantId: (body.merchant ?? '').trim(),
        amount: (body.amount ?? '').trim(),
        note: body.note ?? '',
        key: body.key ?? '',
      });
      return reply.redirect(`/dashboard/pos/${sale.transaction.id}`, 303);
    } catch (err) {
      if (
        !(err instanceof AppError) ||
        err.code === 'internal_error' ||
        err.code === 'service_unavailable' ||
        err.code === 'merchant_not_found'
      )
        throw err;
      const t = translator(words, page.lang);
      const text = err.code === 'idempotency_key_reused' ? t('keyUsed') : err.message;
      return keypadPage(
        deps,
        request,
        reply,
        html`<p class="notice error" role="alert">${text}</p>`,
        400,
        body.amount ?? '',
        body.note ?? '',
      );
    }
  });

  app.get('/pos/:trxid', { schema: pageSchema({ params: Params({ trxid: Segment() }) }) }, async (request, reply) => {
    const page = consolePage(request, reply);
    const tx = await getSale(deps, page.viewer, request.params.trxid);
    const merchant = await getVisibleMerchant(deps, page.viewer, tx.merchant_id);
    return page.send(
      translator(words, page.lang)('title'),
      'pos',
      saleScreen(deps, page, tx, merchant.name),
      200,
      posHead(),
    );
  });

  app.post(
    '/pos/:trxid/cancel',
    { schema: pageSchema({ params: Params({ trxid: Segment() }), body: Form({}) }) },
    async (request, reply) => {
      const page = consolePage(request, reply);
      const t = translator(words, page.lang);
      const tx = await getSale(deps, page.viewer, request.params.trxid);
      try {
        await cancelTransaction(deps, {
          trxid: tx.id,
          owner: { merchantId: tx.merchant_id, mode: tx.mode },
          actor: page.viewer.actor,
        });
      } catch (err) {
        // Paid or expired meanwhile: the sale's own page says which.
        if (
          err instanceof AppError &&
          (err.code === 'transaction_already_paid' || err.code === 'transaction_expired')
        ) {
          return reply.redirect(`/dashboard/pos/${tx.id}`, 303);
        }
        throw err;
      }
      return redirectWithNotice(reply, '/dashboard/pos', {
        kind: 'info',
        text: t('cancelled', { total: formatRupiah(tx.total_amount) }),
      });
    },
  );

  // The paid screen's "Struk": the sale's receipt link, made on the first ask (the same one after), and the
  // receipt opened at the counter's printer width in the counter's language. A form, so a plain GET never
  // writes; a sale not paid yet is the sale's own screen again.
  app.post(
    '/pos/:trxid/receipt',
    { schema: pageSchema({ params: Params({ trxid: Segment() }), body: Form({}) }) },
    async (request, reply) => {
      const page = consolePage(request, reply);
      const tx = await getSale(deps, page.viewer, request.params.trxid);
      if (tx.status !== 'paid') return reply.redirect(`/dashboard/pos/${tx.id}`, 303);
      const token = await makeReceiptLink(deps, page.viewer, tx.id);
      return reply.redirect(`/receipt/${token}?width=58&lang=${page.lang}`, 303);
    },
  );

  // A sandbox sale paid from the counter itself ("Bayar (simulasi)"), as the checkout page's button pays
  // it: only a test sale, only one the viewer may open. The sale's screen then shows it paid.
  app.post(
    '/pos/:trxid/simulate',
    { schema: pageSchema({ params: Params({ trxid: Segment() }), body: Form({}) }) },
    async (request, reply) => {
      const page = consolePage(request, reply);
      const tx = await getSale(deps, page.viewer, request.params.trxid);
      if (tx.mode !== 'test')
        throw new AppError('test_mode_only', 'only sandbox sales can be paid from the point of sale');
      // Only a sale still waiting: a cancelled or expired one is not paid late from the counter.
      if (effectiveStatus(tx, deps.now()) !== 'pending') return reply.redirect(`/dashboard/pos/${tx.id}`, 303);
      try {
        await simulatePayment(deps, { merchantId: tx.merchant_id, mode: 'test' }, tx.id);
      } catch (err) {
        // Paid, expired or cancelled meanwhile: the sale's own page says which.
        if (
          !(err instanceof AppError) ||
          err.code === 'internal_error' ||
          err.code === 'service_unavailable' ||
          err.code === 'storage_unavailable'
        )
          throw err;
      }
      return reply.redirect(`/dashboard/pos/${tx.id}`, 303);
    },
  );
}

async function keypadPage(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
  notice: SafeHtml,
  status = 200,
  amount = '',
  note = '',
): Promise<FastifyReply> {
  const page = consolePage(request, reply);
  const t = translator(words, page.lang);
  const modes = await visibleSaleModes(deps, page.viewer);
  const merchants = modes.map((m) => m.merchant);
  const sales = await todaysSales(deps, page.viewer);
  // A fresh key per rendering of the form: one press of Tagih, however often sent, is one sale.
  const key = randomBytes(18).toString('base64url');
  const typed = /^[0-9]{1,9}$/.test(amount) ? amount : '';
  const chooser =
    merchants.length === 1
      ? html`<input type="hidden" name="merchant" value="${merchants[0]!.id}"><p class="pos-merchant">${merchants[0]!.name}</p>`
      : html`<label for="pos-merchant">${t('merchant')}</label><select id="pos-merchant" name="merchant">${modes.map(
          ({ merchant: m, mode }) =>
            html`<option value="${m.id}">${m.name}${mode.mode === 'test' ? ` (${t('sandboxBadge')})` : ''}</option>`,
        )}</select>`;
  // Which mode the counter sells in, and why the sandbox: one line per merchant that sells there.
  const sandboxes = modes.flatMap(({ merchant: m, mode }) =>
    mode.mode === 'test'
      ? [
          html`<p class="pos-mode" data-merchant="${m.id}"><span class="badge pending">${t('sandboxBadge')}</span> ${
            merchants.length > 1 ? html`<strong>${m.name}</strong>: ` : ''
          }${sandboxText(t, mode.sandboxReason)}${
            mode.sandboxReason === 'no_live_source' && mayOpen(page.viewer, '/dashboard/sources')
              ? html` <a href="/dashboard/sources">${noLiveSourceText('add', page.lang)}</a>`
              : ''
          }</p>`,
        ]
      : [],
  );
  const keys = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '000', '0'];
  const form =
    merchants.length === 0
      ? html`<p class="notice">${t('noMerchant')}</p>`
      : html`<form method="post" action="/dashboard/pos" class="pos-sale" id="pos-sale" data-charging="${t('charging')}">
<input type="hidden" name="_csrf" value="${page.csrf}">
<input type="hidden" name="key" value="${key}">
${chooser}
${sandboxes}
<label for="pos-amount">${t('amount')}</label>
<input id="pos-amount" name="amount" inputmode="numeric" pattern="[0-9]*" maxlength="9" autocomplete="off" required value="${typed}" class="pos-amount-input">
<output id="pos-display" class="pos-display" for="pos-amount" aria-live="polite" hidden>${formatRupiah(Number(typed || '0'))}</output>
<div class="pos-keypad" role="group" aria-label="${t('keypad')}" hidden>
${keys.map((k) => html`<button type="button" class="pos-key" data-key="${k}">${k}</button>`)}
<button type="button" class="pos-key" data-key="delete" aria-label="${t('delete')}">⌫</button>
<button type="button" class="pos-key pos-clear" data-key="clear" aria-label="${t('clear')}">C</button>
</div>
<label for="pos-note">${t('note')}</label>
<input id="pos-note" name="note" maxlength="${NOTE_MAX}" autocomplete="off" placeholder="${t('notePlaceholder')}" value="${note}">
<button type="submit" class="pos-charge" id="pos-charge">${t('charge')}</button>
</form>`;
  const body = html`<div class="pos" data-page="keypad">
<h1 class="visually-hidden">${t('title')}</h1>
${notice}
<p class="notice pos-offline" role="status" hidden><strong>${t('offline')}</strong> ${t('offlineText')}</p>
${form}
${todayList(sales, t, page.lang)}
</div>`;
  return page.send(t('title'), 'pos', body, status, posHead());
}

function todayList(sales: Awaited<ReturnType<typeof todaysSales>>, t: T, lang: Lang): SafeHtml {
  const rows = sales.sales.map(
    ({ transaction: tx, status }) => html`<tr>
<td data-label="${t('time')}">${formatTime(tx.created_at, lang).slice(-9)}</td>
<td class="num" data-label="${t('total')}"><a href="/dashboard/pos/${tx.id}">${formatRupiah(tx.total_amount)}</a></td>
<td data-label="${t('status')}">${statusBadge(status, tx.paid_late === 1, lang)}</td>
<td data-label="${t('noteColumn')}">${tx.description ?? ''}</td></tr>`,
  );
  return html`<section class="pos-today" aria-labelledby="pos-today-title">
<h2 id="pos-today-title">${t('today')}</h2>
<p class="pos-paid-total" id="pos-paid-total">${t('paidToday', { total: formatRupiah(sales.paidTotal), count: sales.paidCount })}</p>
${
  rows.length === 0
    ? html`<p class="muted">${t('noSales')}</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th>${t('time')}</th><th class="num">${t('total')}</th><th>${t('status')}</th><th>${t('noteColumn')}</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
}
</section>`;
}

/** One sale: its QR while pending, the paid screen once paid (the script turns one into the other live). */
function saleScreen(deps: Deps, page: ConsolePage, tx: TransactionsTable, merchantName: string): SafeHtml {
  const t = translator(words, page.lang);
  const now = deps.now();
  const status = effectiveStatus(tx, now);
  const total = formatRupiah(tx.total_amount);
  const announcement = paymentAnnouncement(tx.total_amount, page.lang);
  const paid = html`<section class="pos-paid" id="pos-paid"${status === 'paid' ? '' : html` hidden`}>
<h1>${t('received')}</h1>
<p class="pos-paid-amount">${total}</p>
<p>${t('receivedLine', { total })}</p>
${tx.mode === 'test' ? html`<p class="pos-sandbox"><span class="badge pending">${t('sandboxBadge')}</span> ${t('sandbox')}</p>` : ''}
<form method="post" action="/dashboard/pos/${tx.id}/receipt" target="_blank" class="pos-receipt">
<input type="hidden" name="_csrf" value="${page.csrf}">
<button type="submit">${t('receipt')}</button>
</form>
<a class="button pos-new" href="/dashboard/pos">${t('newSale')}</a>
</section>`;
  const sandbox =
    tx.mode === 'test'
      ? html`<p class="pos-sandbox"><span class="badge pending">${t('sandboxBadge')}</span> ${t('sandbox')}</p>
<form method="post" action="/dashboard/pos/${tx.id}/simulate" class="pos-simulate" data-simulate>
<input type="hidden" name="_csrf" value="${page.csrf}">
<button type="submit">${t('simulate')}</button>
</form>`
      : '';
  if (status === 'paid') return html`<div class="pos" data-page="sale" data-status="paid">${paid}</div>`;
  if (status !== 'pending') {
    return html`<div class="pos" data-page="sale" data-status="${status}">
<p class="notice">${status === 'expired' ? t('expired') : t('cancelledState')}</p>
<a class="button pos-new" href="/dashboard/pos">${t('newSale')}</a></div>`;
  }
  return html`<div class="pos" data-page="sale" data-status="pending" data-trxid="${tx.id}" data-events="/checkout/${tx.id}/events"
 data-expires="${tx.expires_at}" data-now="${now}" data-announce="${announcement}" data-speech-lang="${speechLang(page.lang)}">
<p class="notice error pos-connection" id="pos-connection" role="status" hidden data-lost="${t('connectionLost')}" data-back="${t('connectionBack')}"></p>
<section class="pos-qr" id="pos-qr">
<button type="button" class="pos-sound" id="pos-sound" data-said="${t('soundOn')}" hidden>${t('soundButton')}</button>
<p class="pos-merchant">${merchantName}</p>
<p class="pos-total" id="pos-total">${total}</p>
<p class="pos-breakdown">${
    tx.unique_code < 0
      ? html`${t('breakdownSubtracted', { amount: formatRupiah(tx.amount) })} <strong class="pos-unique">${t('uniqueCodeDiscount', { code: String(-tx.unique_code) })}</strong>`
      : html`${t('breakdown', { amount: formatRupiah(tx.amount) })} <strong class="pos-unique">${t('uniqueCode', { code: tx.unique_code })}</strong>`
  }</p>
<img class="pos-qr-image" id="pos-qr-image" src="${qrPngDataUrl(tx.qris)}" alt="${t('qrFor', { total })}">
${sandbox}
${tx.description ? html`<p class="pos-note">${tx.description}</p>` : ''}
<p class="pos-countdown"><span>${t('expiresIn')}</span> <span id="pos-countdown" aria-live="off"></span></p>
<p class="muted pos-waiting" role="status">${t('waiting')}</p>
<form method="post" action="/dashboard/pos/${tx.id}/cancel" data-confirm="${t('cancelConfirm')}">
<input type="hidden" name="_csrf" value="${page.csrf}">
<button type="submit" class="secondary pos-cancel">${t('cancel')}</button>
</form>
</section>
${paid}
</div>`;
}

function sandboxText(t: T, reason: SandboxReason): string {
  if (reason === 'demo') return t('sandboxDemo');
  return reason === 'live_refused' ? t('sandboxRefused') : t('sandboxNoSource');
}
