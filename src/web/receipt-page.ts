// A paid transaction's receipt (issue 27, section 5), laid out for 58 mm and 80 mm thermal printers:
// receipt.css gives each width a named @page of that size, and the page picks one by the class of its
// body. On screen it is the same slip with the print button, the width and the language above it. Once
// refunds have gone through, its stamp says so instead of PAID, and it shows what was paid, what was
// refunded and what remains paid (issue 35); a refund still in progress is shown but not counted.
import { html, type SafeHtml } from '../domain/html.js';
import { formatRupiah } from '../domain/money.js';
import { formatTime } from '../presentation/format.js';
import { LANGS, translator, type Lang, type Translate } from '../presentation/messages.js';
import type { Receipt } from '../services/receipts/get-receipt.js';
import { pageFrame } from './page-frame.js';
import { words } from './receipt-page.words.js';

export type PaperWidth = 58 | 80;

export interface ReceiptAssets {
  css: string;
  js: string;
  icon: string;
}

function frame(lang: Lang, title: string, assets: ReceiptAssets, width: PaperWidth, body: SafeHtml): string {
  return pageFrame({
    lang,
    title,
    payerPage: true,
    stylesheets: [assets.css],
    icon: assets.icon,
    scripts: [assets.js],
    bodyClass: `paper-${String(width)}`,
    body,
  });
}

/** The stamp's word for where the transaction stands after its refunds. */
const STAMP = { paid: 'paid', partly_refunded: 'partlyRefunded', refunded: 'refunded' } as const satisfies Record<
  Receipt['refunds']['standing'],
  keyof typeof words.en
>;

/** The receipt; `self` is its own path (without a query), for the width and language links. */
export function renderReceipt(
  lang: Lang,
  assets: ReceiptAssets,
  receipt: Receipt,
  width: PaperWidth,
  self: string,
): string {
  const t = translator(words, lang);
  const { transaction: tx, merchant, payment, refunds } = receipt;
  // The language switch offers the other one.
  const other: Lang = LANGS.find((l) => l !== lang) ?? lang;
  const line = (label: string, value: string) =>
    html`<div class="line"><span>${label}</span><span>${value}</span></div>`;
  const widthLink = (w: PaperWidth) =>
    w === width
      ? html`<strong aria-current="true">${t(w === 58 ? 'mm58' : 'mm80')}</strong>`
      : html`<a href="${self}?width=${String(w)}&amp;lang=${lang}">${t(w === 58 ? 'mm58' : 'mm80')}</a>`;
  const body = html`<nav class="no-print tools" aria-label="${t('title')}">
<button type="button" data-print>${t('print')}</button>
<span>${t('width')}: ${widthLink(58)} · ${widthLink(80)}</span>
<a href="${self}?width=${String(width)}&amp;lang=${other}" hreflang="${other}" lang="${other}">${translator(words, other)('title')}: ${t('language')}</a>
</nav>
<main class="receipt">
<header><h1>${merchant.merchant_name}</h1><p>${merchant.merchant_city}</p>${merchant.nmid ? html`<p>${t('nmid')} ${merchant.nmid}</p>` : ''}</header>
<p class="stamp${refunds.standing === 'paid' ? '' : ' stamp-refunded'}">${t(STAMP[refunds.standing])}</p>
${tx.mode === 'test' ? html`<p class="sandbox">${t('sandbox')}</p>` : ''}
<hr>
${line(t('amount'), formatRupiah(tx.amount))}
${line(t(tx.unique_code < 0 ? 'uniqueCodeDiscount' : 'uniqueCode'), formatRupiah(tx.unique_code))}
<div class="line total"><span>${t('total')}</span><span>${formatRupiah(tx.total_amount)}</span></div>
${refundLines(t, refunds)}
<hr>
${line(t('time'), formatTime(tx.paid_at ?? tx.created_at, lang))}
${tx.paid_late === 1 ? html`<p class="note">${t('paidLate')}</p>` : ''}
${payment?.issuer ? line(t('issuer'), payment.issuer) : ''}
${tx.ref ? line(t('ref'), tx.ref) : ''}
${payment?.reference ? html`<div class="block"><span>${t('paymentRef')}</span><span class="mono">${payment.reference}</span></div>` : ''}
<div class="block"><span>${t('transaction')}</span><span class="mono">${tx.id}</span></div>
<hr>
<p class="thanks">${t('thanks')}</p>
</main>`;
  return frame(lang, `${t('title')} · ${merchant.merchant_name}`, assets, width, body);
}

/** Nothing while no refund was asked for; else what was paid, refunded, in progress and remains paid. */
function refundLines(t: Translate<keyof typeof words.en>, refunds: Receipt['refunds']): SafeHtml | string {
  if (refunds.refunded === 0 && refunds.inProgress === 0) return '';
  const line = (label: string, value: string, cls = 'line') =>
    html`<div class="${cls}"><span>${label}</span><span>${value}</span></div>`;
  return html`<hr>
${line(t('received'), formatRupiah(refunds.paid))}
${refunds.refunded > 0 ? line(t('refundedAmount'), `-${formatRupiah(refunds.refunded)}`) : ''}
${line(t('remaining'), formatRupiah(refunds.remaining), 'line net')}
${refunds.inProgress > 0 ? html`${line(t('refundInProgress'), formatRupiah(refunds.inProgress))}<p class="note">${t('inProgressNote')}</p>` : ''}`;
}

export function renderReceiptNotFound(lang: Lang, assets: ReceiptAssets): string {
  const t = translator(words, lang);
  return frame(
    lang,
    t('notFoundTitle'),
    assets,
    58,
    html`<main class="receipt"><h1>${t('notFoundTitle')}</h1><p>${t('notFoundText')}</p></main>`,
  );
}
