// The payer's pages of a payment link: the amount form at /pay/{handle}, and the page that says why a
// link could not start a payment. One language per page, from Accept-Language (Bahasa Indonesia or
// English). No script: the form is plain HTML sent with GET.
import { html, type SafeHtml } from '../domain/html.js';
import { translator, type Lang } from '../presentation/messages.js';
import { pageFrame } from './page-frame.js';
import { words } from './payment-link-pages.words.js';

export interface PayAssets {
  /** payer.css, shared with the checkout page; `css` (pay-link.css) follows it. */
  payerCss: string;
  css: string;
  icon: string;
}

export interface LinkMerchant {
  handle: string;
  name: string;
  city: string;
}

function frame(lang: Lang, title: string, assets: PayAssets, body: SafeHtml): string {
  return pageFrame({
    lang,
    title,
    payerPage: true,
    stylesheets: [assets.payerCss, assets.css],
    icon: assets.icon,
    body: html`<main class="paylink">
${body}
</main>`,
  });
}

const heading = (m: LinkMerchant) => html`<header><h1>${m.name}</h1><p class="city">${m.city}</p></header>`;

/** The form where the payer types the amount; `problem` is shown above it (a refused earlier try). */
export function renderPayForm(
  lang: Lang,
  assets: PayAssets,
  m: LinkMerchant,
  typed: { amount: string; email: string },
  problem: string | null,
): string {
  const t = translator(words, lang);
  const body = html`${heading(m)}
<form method="get" action="/pay/${m.handle}" class="pay-form">
${problem ? html`<p class="notice error" role="alert">${problem}</p>` : ''}
<label for="pay-amount">${t('amount')}</label>
<div class="amount"><span aria-hidden="true">Rp</span><input id="pay-amount" name="amount" inputmode="numeric" autocomplete="off" required maxlength="20" value="${typed.amount}" aria-describedby="pay-amount-hint"></div>
<p class="hint" id="pay-amount-hint">${t('amountHint')}</p>
<label for="pay-email">${t('email')}</label>
<input id="pay-email" name="email" type="email" autocomplete="email" maxlength="254" value="${typed.email}" aria-describedby="pay-email-hint">
<p class="hint" id="pay-email-hint">${t('emailHint')}</p>
<button type="submit">${t('pay')}</button>
</form>`;
  return frame(lang, t('payTo', { merchant: m.name }), assets, body);
}

/** A page that says why a link started no payment, with a way back to the form when there is one. */
export function renderPayProblem(
  lang: Lang,
  assets: PayAssets,
  title: string,
  text: string,
  m: LinkMerchant | null,
): string {
  const t = translator(words, lang);
  const body = html`${m ? heading(m) : ''}
<section class="problem">
<h2>${title}</h2>
<p>${text}</p>
${m ? html`<p><a href="/pay/${m.handle}">${t('otherAmount')}</a></p>` : ''}
</section>`;
  return frame(lang, title, assets, body);
}
