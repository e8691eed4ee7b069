// The payer's pages of a payment link: the amount form at /pay/{handle}, and the page that says why a
// link could not start a payment. One language per page, from Accept-Language (Bahasa Indonesia or
// English). No script: the form is plain HTML sent with GET.
import { html, type SafeHtml } from '../domain/html.js';
import { defineMessages, translator, type Lang, type Translate } from '../presentation/messages.js';

export const payWords = defineMessages(
  {
    payTo: 'Pay {merchant}',
    amount: 'Amount',
    amountHint: 'In whole rupiah, e.g. 25000. A small unique code is added to it on the next page.',
    email: 'Email',
    emailHint: 'Optional: where the receipt is sent.',
    pay: 'Pay',
    unknownTitle: 'Payment link not found',
    unknownText: 'There is no payment link at this address. Check the link with the merchant.',
    disabledTitle: 'Payments are closed',
    disabledText: '{merchant} does not take payments through this link at the moment.',
    waitingTitle: 'Payments are not open yet',
    waitingText: '{merchant} can take payments through this link once the operator of this payment service has approved it.',
    quotaTitle: 'No more payments through this link today',
    quotaText: '{merchant} cannot take more payments through this link today. Try again after midnight (WIB), or ask the merchant for another way to pay.',
    invalidTitle: 'This payment cannot be started',
    amountRequired: 'Type the amount to pay.',
    invalidAmount: 'The amount must be whole rupiah in digits only, e.g. 25000.',
    amountRange: 'The amount must be between {min} and {max}.',
    invalidEmail: 'The e-mail address is not valid.',
    invalidRef: 'The order reference in this link is not valid.',
    refConflict: 'This order reference already belongs to a payment of another amount.',
    invalidLink: 'This link is not valid. Check it with the merchant.',
    tooManyTitle: 'Too many payments',
    tooMany: 'Too many payments were started from your connection. Try again in {seconds} seconds.',
    busyTitle: 'Try again shortly',
    busy: 'The payment could not be started right now. Try again in a minute.',
    failedTitle: 'Something went wrong',
    failed: 'The payment could not be started. Nothing was charged. Quote this reference if you ask for help: {id}',
    otherAmount: 'Pay another amount',
  },
  {
    payTo: 'Bayar ke {merchant}',
    amount: 'Jumlah',
    amountHint: 'Dalam rupiah bulat, mis. 25000. Kode unik kecil ditambahkan di halaman berikutnya.',
    email: 'Email',
    emailHint: 'Opsional: alamat tujuan bukti pembayaran.',
    pay: 'Bayar',
    unknownTitle: 'Tautan pembayaran tidak ditemukan',
    unknownText: 'Tidak ada tautan pembayaran di alamat ini. Periksa tautannya dengan merchant.',
    disabledTitle: 'Pembayaran ditutup',
    disabledText: '{merchant} sedang tidak menerima pembayaran melalui tautan ini.',
    waitingTitle: 'Pembayaran belum dibuka',
    waitingText: '{merchant} dapat menerima pembayaran melalui tautan ini setelah disetujui oleh pengelola layanan pembayaran ini.',
    quotaTitle: 'Tidak ada pembayaran lagi melalui tautan ini hari ini',
    quotaText:
      '{merchant} tidak dapat menerima pembayaran lagi melalui tautan ini hari ini. Coba lagi setelah tengah malam (WIB), atau tanyakan cara pembayaran lain kepada merchant.',
    invalidTitle: 'Pembayaran ini tidak dapat dimulai',
    amountRequired: 'Isi jumlah yang akan dibayar.',
    invalidAmount: 'Jumlah harus rupiah bulat, hanya angka, mis. 25000.',
    amountRange: 'Jumlah harus antara {min} dan {max}.',
    invalidEmail: 'Alamat email tidak valid.',
    invalidRef: 'Referensi pesanan pada tautan ini tidak valid.',
    refConflict: 'Referensi pesanan ini sudah dipakai untuk pembayaran dengan jumlah lain.',
    invalidLink: 'Tautan ini tidak valid. Periksa tautannya dengan merchant.',
    tooManyTitle: 'Terlalu banyak pembayaran',
    tooMany: 'Terlalu banyak pembayaran dimulai dari koneksi Anda. Coba lagi dalam {seconds} detik.',
    busyTitle: 'Coba lagi sebentar lagi',
    busy: 'Pembayaran tidak dapat dimulai saat ini. Coba lagi dalam satu menit.',
    failedTitle: 'Terjadi kesalahan',
    failed: 'Pembayaran tidak dapat dimulai. Tidak ada dana yang ditarik. Sebutkan referensi ini jika meminta bantuan: {id}',
    otherAmount: 'Bayar jumlah lain',
  },
);

export type PayWord = keyof typeof payWords.en;

export interface PayAssets {
  css: string;
  icon: string;
}

export interface LinkMerchant {
  handle: string;
  name: string;
  city: string;
}

function frame(lang: Lang, title: string, assets: PayAssets, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<link rel="stylesheet" href="${assets.css}">
<link rel="icon" type="image/svg+xml" href="${assets.icon}">
</head>
<body>
<main class="paylink">
${body}
</main>
</body>
</html>`.toString();
}

const heading = (m: LinkMerchant) => html`<header><h1>${m.name}</h1><p class="city">${m.city}</p></header>`;

/** The form where the payer types the amount; `problem` is shown above it (a refused earlier try). */
export function renderPayForm(lang: Lang, assets: PayAssets, m: LinkMerchant, typed: { amount: string; email: string }, problem: string | null): string {
  const t = translator(payWords, lang);
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
export function renderPayProblem(lang: Lang, assets: PayAssets, title: string, text: string, m: LinkMerchant | null): string {
  const t = translator(payWords, lang);
  const body = html`${m ? heading(m) : ''}
<section class="problem">
<h2>${title}</h2>
<p>${text}</p>
${m ? html`<p><a href="/pay/${m.handle}">${t('otherAmount')}</a></p>` : ''}
</section>`;
  return frame(lang, title, assets, body);
}

export function payTranslator(lang: Lang): Translate<PayWord> {
  return translator(payWords, lang);
}
