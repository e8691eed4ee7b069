// @ts-check
// The checkout page's script, served as it is under a content-hashed URL (no bundler) and type-checked
// by `npm run typecheck` (tsconfig.browser.json). It only enhances a page that is complete without it.
//
// Live status comes from the server-sent-events stream. When the server refuses one (429/503: too
// many streams) or it drops, the page polls /checkout/{trxid}/status every few seconds instead.
(() => {
  const POLL_SECONDS = 3;

  /** @typedef {'pending' | 'paid' | 'expired' | 'cancelled'} Status */
  // The part of the server's CheckoutView (src/services/transactions/get-checkout.ts) this script reads.
  /** @typedef {{ trxid: string, status: Status, expires_at: string }} View */
  /** @typedef {{ success: true, data: { status: Status } } | { success: false, error: { message: string } }} Answer */

  const found = document.getElementById('checkout');
  if (!found) return;
  /** @type {HTMLElement} declared, so the functions below see it as found */
  const main = found;
  /** @type {View} */
  const view = JSON.parse(/** @type {string} */ (main.dataset.checkout));
  const base = `/checkout/${encodeURIComponent(view.trxid)}`;
  const pollMs = POLL_SECONDS * 1000;
  /** @type {Record<string, string>} */
  const texts = {
    pending: 'Menunggu pembayaran… / Waiting for payment…',
    paid: 'Pembayaran diterima. Terima kasih! / Payment received. Thank you!',
    expired: 'Kode QRIS sudah kedaluwarsa. / This QRIS code has expired.',
    cancelled: 'Transaksi dibatalkan. / This transaction was cancelled.',
  };
  // The server renders these three with the page; the casts say so rather than checking each use.
  const statusText = /** @type {HTMLElement} */ (document.getElementById('status-text'));
  const countdown = /** @type {HTMLElement} */ (document.getElementById('countdown'));
  const note = /** @type {HTMLElement} */ (document.getElementById('live-note'));
  const expiresAt = Date.parse(view.expires_at);
  let status = view.status;
  /** @type {EventSource | null} */
  let source = null;
  /** @type {ReturnType<typeof setInterval> | null} */
  let poller = null;
  /** @type {ReturnType<typeof setInterval> | null} */
  let timer = null;

  // fromStream: the stream itself brought the final status and the server ends it; closing it here
  // would abort a response that is finishing anyway.
  /**
   * @param {Status} next
   * @param {boolean} [fromStream]
   */
  function show(next, fromStream) {
    const was = status;
    status = next;
    main.dataset.status = next;
    statusText.textContent = texts[next] || next;
    if (next !== 'pending') {
      if (source && !fromStream) {
        source.close();
        source = null;
      }
      if (poller) clearInterval(poller);
      if (timer) clearInterval(timer);
      countdown.textContent = '';
      note.hidden = true;
      // Once: the stream and the sandbox button's answer may both bring the same payment.
      if (was === 'pending') refresh();
    }
  }

  // The server renders a closed page (its title, and for a payment the proof a payer keeps): fetched
  // again and put in place of this one's content, so the live page ends as a reload would show it.
  // Nothing changes if it still says pending (this page's own clock ran out first).
  async function refresh() {
    try {
      const res = await fetch(base, { cache: 'no-store' });
      if (!res.ok) return;
      const fresh = new DOMParser().parseFromString(await res.text(), 'text/html');
      const next = fresh.getElementById('checkout');
      if (!next || next.dataset.status === 'pending') return;
      main.replaceChildren(...Array.from(next.childNodes, (node) => document.importNode(node, true)));
      main.dataset.checkout = next.dataset.checkout;
      main.dataset.status = next.dataset.status;
      document.title = fresh.title;
    } catch (_e) {
      // Offline for a moment: the status line already says what happened.
    }
  }

  function tick() {
    const left = payerSecondsLeft(expiresAt, Date.now());
    countdown.textContent = payerCountdownText(left);
    if (left === 0 && status === 'pending') show('expired');
  }

  async function check() {
    try {
      const res = await fetch(`${base}/status`, { cache: 'no-store' });
      if (!res.ok) return;
      /** @type {Answer} */
      const body = await res.json();
      if (status === 'pending' && body.success && body.data.status !== status) show(body.data.status);
    } catch (_e) {
      // Offline for a moment: the next poll tries again.
    }
  }

  function poll() {
    if (poller || status !== 'pending') return;
    const en = document.createElement('span');
    en.lang = 'en';
    en.textContent = `Status is checked every ${POLL_SECONDS} seconds.`;
    note.replaceChildren(`Status diperiksa setiap ${POLL_SECONDS} detik. `, en);
    note.hidden = false;
    poller = setInterval(check, pollMs);
    check();
  }

  function listen() {
    source = new EventSource(`${base}/events`);
    source.addEventListener('status', (e) => {
      /** @type {{ status: Status }} */
      const data = JSON.parse(e.data);
      if (data.status !== status) show(data.status, true);
    });
    // Fired when the server refuses the stream or it ends (after a final status, or a dropped
    // connection). EventSource would reconnect on its own, over and over; this page polls instead.
    source.addEventListener('error', () => {
      if (source) source.close();
      source = null;
      poll();
    });
  }

  // A closed page came rendered by the server; only a pending one is followed.
  if (status === 'pending') {
    show(status);
    tick();
    timer = setInterval(tick, 1000);
    listen();
  }

  const button = /** @type {HTMLButtonElement | null} */ (document.getElementById('simulate'));
  if (button) {
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        const res = await fetch(`${base}/simulate`, { method: 'POST' });
        /** @type {Answer} */
        const body = await res.json();
        if (body.success) show(body.data.status);
        else statusText.textContent = body.error.message;
      } finally {
        button.disabled = false;
      }
    });
  }
})();
