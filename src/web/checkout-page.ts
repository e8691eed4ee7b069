import { formatRupiah } from '../domain/money.js';
import type { CheckoutView } from '../services/get-checkout.js';

/** Text for an HTML element or a quoted attribute (the checkout page and the e-mails). */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Payers read Western Indonesian Time (UTC+7, no daylight saving): "22/11/2026 11:27 WIB". */
export function formatWib(iso: string): string {
  const d = new Date(Date.parse(iso) + 7 * 3600 * 1000);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${p(d.getUTCMonth() + 1)}/${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())} WIB`;
}

/**
 * The payer's page: Bahasa Indonesia first, English beneath. It renders complete on the server (QR,
 * total, expiry) so it works without JavaScript; the script adds the countdown and live status.
 */
export function renderCheckoutPage(view: CheckoutView): string {
  const total = formatRupiah(view.total_amount);
  const data = escapeHtml(JSON.stringify(view));
  const sandbox =
    view.mode === 'test'
      ? `<div class="sandbox"><p>Mode sandbox: tidak ada uang sungguhan. <span lang="en">Sandbox mode: no real money.</span></p>
         <button id="simulate" type="button">Bayar (simulasi) <span lang="en">/ Pay (simulated)</span></button></div>`
      : '';
  return `<!doctype html>
<html lang="id">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Bayar ${escapeHtml(total)} – ${escapeHtml(view.merchant_name)}</title>
<link rel="stylesheet" href="/checkout/assets/checkout.css">
<link rel="icon" type="image/svg+xml" href="/checkout/assets/icon.svg">
</head>
<body>
<main id="checkout" data-checkout="${data}" data-status="${view.status}">
  <header>
    <h1>${escapeHtml(view.merchant_name)}</h1>
    <p class="city">${escapeHtml(view.merchant_city)}</p>
  </header>
  <section class="pay" id="pay-section">
    <p class="label">Total yang harus dibayar <span lang="en">/ Amount to pay</span></p>
    <p class="total" id="total">${escapeHtml(total)}</p>
    <p class="breakdown">${escapeHtml(formatRupiah(view.amount))} + kode unik <strong id="unique-code">${view.unique_code}</strong>
      <span lang="en">(unique code)</span></p>
    <p class="warn">Bayar tepat ${escapeHtml(total)}, termasuk kode unik. <span lang="en">Pay exactly ${escapeHtml(total)}, unique code included.</span></p>
    <img id="qr" src="/api/payment-gateway/qr/${view.trxid}.svg" width="300" height="300"
      alt="Kode QRIS untuk ${escapeHtml(total)} / QRIS code for ${escapeHtml(total)}">
    <p>Pindai dengan aplikasi dompet digital atau bank apa pun yang mendukung QRIS.
      <span lang="en">Scan with any QRIS wallet or banking app.</span></p>
    <p class="countdown">Berlaku hingga <span lang="en">/ Valid until</span>
      <time id="expires" datetime="${view.expires_at}">${formatWib(view.expires_at)}</time>
      <strong id="countdown"></strong></p>
    ${sandbox}
  </section>
  <section class="state" id="state" aria-live="polite">
    <p id="status-text"></p>
    <p id="live-note" class="note" hidden></p>
  </section>
  <p class="ref">ID transaksi <span lang="en">/ Transaction ID</span>: <code>${view.trxid}</code></p>
</main>
<script src="/checkout/assets/checkout.js" defer></script>
</body>
</html>`;
}

export const CHECKOUT_CSS = `
*{box-sizing:border-box}body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f6f8;color:#1b2631}
main{max-width:420px;margin:24px auto;background:#fff;border-radius:12px;padding:24px;box-shadow:0 2px 12px rgba(0,0,0,.08);text-align:center}
h1{font-size:1.3rem;margin:0}.city{margin:4px 0 16px;color:#5d6d7e}
.label{margin:0;color:#5d6d7e}.total{font-size:2.2rem;font-weight:700;margin:4px 0}
.breakdown{margin:0 0 8px}.breakdown strong{background:#fff3cd;padding:0 6px;border-radius:4px}
.warn{font-size:.9rem;color:#7d6608}img{display:block;margin:12px auto;max-width:100%;height:auto}
[lang=en]{color:#7f8c8d;font-size:.9em}.countdown strong{display:block;font-size:1.4rem;margin-top:4px}
.sandbox{border:1px dashed #aab7b8;border-radius:8px;padding:8px;margin-top:12px}
button{font-size:1rem;padding:10px 16px;border:0;border-radius:8px;background:#1a5276;color:#fff;cursor:pointer}
.state p{font-size:1.2rem;font-weight:600}.state .note{font-size:.85rem;font-weight:400;color:#5d6d7e}
main[data-status=paid] .state{color:#1e8449}main[data-status=expired] .state,main[data-status=cancelled] .state{color:#922b21}
main[data-status=paid] .pay,main[data-status=expired] .pay,main[data-status=cancelled] .pay{display:none}.ref{font-size:.8rem;color:#7f8c8d}
`;

/** The page's icon (a QR code's three finder squares), served from 'self' as the CSP's img-src allows. */
export const CHECKOUT_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="6" fill="#1a5276"/>
<g fill="none" stroke="#fff" stroke-width="2"><rect x="5" y="5" width="9" height="9"/><rect x="18" y="5" width="9" height="9"/><rect x="5" y="18" width="9" height="9"/></g>
<g fill="#fff"><rect x="8" y="8" width="3" height="3"/><rect x="21" y="8" width="3" height="3"/><rect x="8" y="21" width="3" height="3"/>
<rect x="18" y="18" width="3" height="3"/><rect x="24" y="18" width="3" height="3"/><rect x="21" y="21" width="3" height="3"/><rect x="18" y="24" width="3" height="3"/><rect x="24" y="24" width="3" height="3"/></g>
</svg>
`;
