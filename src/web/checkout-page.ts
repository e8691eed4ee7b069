import { formatRupiah } from '../domain/money.js';
import { html } from '../domain/html.js';
import { formatTime } from '../presentation/format.js';
import type { CheckoutView } from '../services/transactions/get-checkout.js';

/** Where the page finds its files (static-assets.ts: hashed URLs). */
export interface CheckoutAssetUrls {
  css: string;
  js: string;
  icon: string;
}

/**
 * The payer's page: Bahasa Indonesia first, English beneath. It renders complete on the server (QR,
 * total, expiry) so it works without JavaScript; the script adds the countdown and live status.
 */
export function renderCheckoutPage(view: CheckoutView, assets: CheckoutAssetUrls): string {
  const total = formatRupiah(view.total_amount);
  const sandbox =
    view.mode === 'test'
      ? html`<div class="sandbox"><p>Mode sandbox: tidak ada uang sungguhan. <span lang="en">Sandbox mode: no real money.</span></p>
         <button id="simulate" type="button">Bayar (simulasi) <span lang="en">/ Pay (simulated)</span></button></div>`
      : null;
  return html`<!doctype html>
<html lang="id">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Bayar ${total} – ${view.merchant_name}</title>
<link rel="stylesheet" href="${assets.css}">
<link rel="icon" type="image/svg+xml" href="${assets.icon}">
</head>
<body>
<main id="checkout" data-checkout="${JSON.stringify(view)}" data-status="${view.status}">
  <header>
    <h1>${view.merchant_name}</h1>
    <p class="city">${view.merchant_city}</p>
  </header>
  <section class="pay" id="pay-section">
    <p class="label">Total yang harus dibayar <span lang="en">/ Amount to pay</span></p>
    <p class="total" id="total">${total}</p>
    <p class="breakdown">${formatRupiah(view.amount)} + kode unik <strong id="unique-code">${view.unique_code}</strong>
      <span lang="en">(unique code)</span></p>
    <p class="warn">Bayar tepat ${total}, termasuk kode unik. <span lang="en">Pay exactly ${total}, unique code included.</span></p>
    <img id="qr" src="/api/payment-gateway/qr/${view.trxid}.svg" width="300" height="300"
      alt="Kode QRIS untuk ${total} / QRIS code for ${total}">
    <p>Pindai dengan aplikasi dompet digital atau bank apa pun yang mendukung QRIS.
      <span lang="en">Scan with any QRIS wallet or banking app.</span></p>
    <p class="countdown">Berlaku hingga <span lang="en">/ Valid until</span>
      <time id="expires" datetime="${view.expires_at}">${formatTime(Date.parse(view.expires_at), 'id')}</time>
      <strong id="countdown"></strong></p>
    ${sandbox}
  </section>
  <section class="state" id="state" aria-live="polite">
    <p id="status-text"></p>
    <p id="live-note" class="note" hidden></p>
  </section>
  <p class="ref">ID transaksi <span lang="en">/ Transaction ID</span>: <code>${view.trxid}</code></p>
</main>
<script src="${assets.js}" defer></script>
</body>
</html>`.toString();
}
