// @ts-check
// What the scripts of the pages that take a payment share (the checkout page's checkout.js and the point
// of sale's pos.js): money written as the server's formatRupiah writes it, and a countdown's text. Loaded
// before them (both are deferred, so in order); its functions are the page's globals, and the type check
// (tsconfig.browser.json) sees them as such.

/** "25000" -> "Rp25.000", as the server's formatRupiah writes it. */
// biome-ignore lint/correctness/noUnusedVariables: a global of the page, for checkout.js and pos.js
function payerRupiah(/** @type {string} */ digits) {
  const plain = digits.replace(/^0+(?=.)/, '') || '0';
  return `Rp${plain.replace(/\B(?=(\d{3})+(?!\d))/g, '.')}`;
}

/** The whole seconds from `now` until `until` (both epoch ms), never below 0. */
// biome-ignore lint/correctness/noUnusedVariables: a global of the page, for checkout.js and pos.js
function payerSecondsLeft(/** @type {number} */ until, /** @type {number} */ now) {
  return Math.max(0, Math.floor((until - now) / 1000));
}

/** 125 -> "02:05": the countdown of a code's last minutes. */
// biome-ignore lint/correctness/noUnusedVariables: a global of the page, for checkout.js and pos.js
function payerCountdownText(/** @type {number} */ seconds) {
  return `${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
}
