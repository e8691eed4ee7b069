import { formatRupiah } from '../domain/money.js';
import { transactionUrls } from '../domain/transaction.js';
import { html, type SafeHtml } from '../domain/html.js';
import { formatTime } from '../presentation/format.js';
import { translator } from '../presentation/messages.js';
import { payerText, statusText } from '../presentation/shared-texts.js';
import type { CheckoutView } from '../services/transactions/get-checkout.js';
import { words } from './checkout-page.words.js';
import { pageFrame } from './page-frame.js';
import { qrFileName } from './qr-file-name.js';

/** Where the page finds its files (static-assets.ts: hashed URLs). */
export interface CheckoutAssetUrls {
  /** payer.css, shared with the payment-link pages; `css` (checkout.css) follows it. */
  payerCss: string;
  css: string;
  /** payer-common.js, which checkout.js uses: loaded before it. */
  commonJs: string;
  js: string;
  icon: string;
}

// Each text in Bahasa Indonesia, then in English.
const id = translator(words, 'id');
const en = translator(words, 'en');

/** One of the page's own texts in both languages: "Bukti pembayaran / Proof of payment". */
const both = (key: keyof typeof words.en): SafeHtml => html`${id(key)} <span lang="en">/ ${en(key)}</span>`;

/** The tab's title: what to pay while pending, else the state the transaction ended in. */
function pageTitle(view: CheckoutView, total: string): string {
  const merchant = view.merchant_name;
  if (view.status === 'pending') return id('title', { total, merchant });
  const status = statusText(view.status, 'id');
  return view.status === 'paid'
    ? id('titlePaid', { status, total, merchant })
    : id('titleClosed', { status, merchant });
}

/**
 * What a payer screenshots and shows the merchant as proof: the amount, to whom, when (WIB) and the
 * transaction ID, in one box. A sandbox payment says so inside the box, so its picture proves nothing.
 */
function proofOfPayment(view: CheckoutView, total: string): SafeHtml {
  const paidAt = view.paid_at === null ? null : Date.parse(view.paid_at);
  return html`<section class="proof" aria-labelledby="proof-title">
    <h2 id="proof-title">${both('proof')}</h2>
    <dl>
      <dt>${both('amountPaid')}</dt><dd class="paid-total">${total}</dd>
      <dt>${both('paidTo')}</dt><dd>${view.merchant_name}, ${view.merchant_city}</dd>
      ${paidAt === null ? null : html`<dt>${both('paidAt')}</dt><dd><time datetime="${view.paid_at!}">${formatTime(paidAt, 'id')}</time></dd>`}
      <dt>${payerText('transactionId', 'id')} <span lang="en">/ ${payerText('transactionId', 'en')}</span></dt><dd><code>${view.trxid}</code></dd>
    </dl>
    ${view.mode === 'test' ? html`<p class="sandbox-note">${payerText('sandbox', 'id')} <span lang="en">${payerText('sandbox', 'en')}</span></p>` : null}
  </section>`;
}

/**
 * The payer's page: Bahasa Indonesia first, English beneath. It renders complete on the server (QR,
 * total, expiry; or the state it ended in, with the proof of a payment) so it works without JavaScript;
 * the script adds the countdown and live status, and fetches this page again when the state changes.
 */
export function renderCheckoutPage(view: CheckoutView, assets: CheckoutAssetUrls): string {
  const total = formatRupiah(view.total_amount);
  // Relative: the page and its images are served by the same gateway.
  const urls = transactionUrls('', view.trxid);
  const sandbox =
    view.mode === 'test'
      ? html`<div class="sandbox"><p>${payerText('sandbox', 'id')} <span lang="en">${payerText('sandbox', 'en')}</span></p>
         <button id="simulate" type="button">${id('simulate')} <span lang="en">/ ${en('simulate')}</span></button></div>`
      : null;
  // A merchant's code is added to the price or, subtracted (a negative code), a discount the payer sees as such.
  const codeWord = view.unique_code < 0 ? 'codeSubtracted' : 'codeAdded';
  const body = html`<main id="checkout" data-checkout="${JSON.stringify(view)}" data-status="${view.status}">
  <header>
    <h1>${view.merchant_name}</h1>
    <p class="city">${view.merchant_city}</p>
  </header>
  <section class="pay" id="pay-section">
    <p class="label">${payerText('amountToPay', 'id')} <span lang="en">/ ${payerText('amountToPay', 'en')}</span></p>
    <p class="total" id="total">${total}</p>
    <p class="breakdown">${formatRupiah(view.amount)} ${payerText(codeWord, 'id')} <strong id="unique-code">${Math.abs(view.unique_code)}</strong>
      <span lang="en">(${payerText(codeWord, 'en')})</span></p>
    <p class="warn">${id('payExactly', { total })} <span lang="en">${en('payExactly', { total })}</span></p>
    <img id="qr" src="${urls.svg}" width="300" height="300"
      alt="${payerText('qrCodeFor', 'id', { total })} / ${payerText('qrCodeFor', 'en', { total })}">
    <p>${id('scan')}
      <span lang="en">${en('scan')}</span></p>
    <p class="save-qr"><a class="button" href="${urls.png}" download="${qrFileName(view.merchant_name, view.total_amount)}">${both('saveQr')}</a></p>
    <p class="hint">${id('fromGallery')} <span lang="en">${en('fromGallery')}</span></p>
    <p class="countdown">${payerText('validUntil', 'id')} <span lang="en">/ ${payerText('validUntil', 'en')}</span>
      <time id="expires" datetime="${view.expires_at}">${formatTime(Date.parse(view.expires_at), 'id')}</time>
      <strong id="countdown"></strong></p>
    ${sandbox}
  </section>
  <section class="state" id="state" aria-live="polite">
    <p id="status-text">${view.status === 'pending' ? null : both(view.status)}</p>
    <p id="live-note" class="note" hidden></p>
    ${view.status === 'paid' ? proofOfPayment(view, total) : null}
  </section>
  ${
    view.status === 'paid'
      ? null
      : html`<p class="ref">${payerText('transactionId', 'id')} <span lang="en">/ ${payerText('transactionId', 'en')}</span>: <code>${view.trxid}</code></p>`
  }
</main>`;
  return pageFrame({
    lang: 'id',
    title: pageTitle(view, total),
    payerPage: true,
    stylesheets: [assets.payerCss, assets.css],
    icon: assets.icon,
    scripts: [assets.commonJs, assets.js],
    body,
  });
}
