// Served as /checkout/assets/checkout.js. Kept as a string of plain browser JavaScript so the page needs
// no bundler; it only enhances a page that is already complete without it.
//
// Live status comes from the server-sent-events stream. When the server refuses one (429/503: too
// many streams) or it drops, the page polls /checkout/{trxid}/status every few seconds instead.
export const CHECKOUT_POLL_SECONDS = 3;

export const CHECKOUT_JS = `(() => {
  const main = document.getElementById('checkout');
  if (!main) return;
  const view = JSON.parse(main.dataset.checkout);
  const base = '/checkout/' + encodeURIComponent(view.trxid);
  const pollMs = ${CHECKOUT_POLL_SECONDS * 1000};
  const texts = {
    pending: 'Menunggu pembayaran… / Waiting for payment…',
    paid: 'Pembayaran diterima. Terima kasih! / Payment received. Thank you!',
    expired: 'Kode QRIS sudah kedaluwarsa. / This QRIS code has expired.',
    cancelled: 'Transaksi dibatalkan. / This transaction was cancelled.',
  };
  const statusText = document.getElementById('status-text');
  const countdown = document.getElementById('countdown');
  const note = document.getElementById('live-note');
  const expiresAt = Date.parse(view.expires_at);
  let status = view.status;
  let source = null;
  let poller = null;
  let timer = null;

  // fromStream: the stream itself brought the final status and the server ends it; closing it here
  // would abort a response that is finishing anyway.
  function show(next, fromStream) {
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
    }
  }

  function tick() {
    const left = Math.max(0, Math.round((expiresAt - Date.now()) / 1000));
    const m = Math.floor(left / 60), s = left % 60;
    countdown.textContent = String(m).padStart(2, '0') + ':' + String(s).padStart(2, '0');
    if (left === 0 && status === 'pending') show('expired');
  }

  async function check() {
    try {
      const res = await fetch(base + '/status', { cache: 'no-store' });
      if (!res.ok) return;
      const body = await res.json();
      if (status === 'pending' && body.success && body.data.status !== status) show(body.data.status);
    } catch (e) {
      // Offline for a moment: the next poll tries again.
    }
  }

  function poll() {
    if (poller || status !== 'pending') return;
    const en = document.createElement('span');
    en.lang = 'en';
    en.textContent = 'Status is checked every ${CHECKOUT_POLL_SECONDS} seconds.';
    note.replaceChildren('Status diperiksa setiap ${CHECKOUT_POLL_SECONDS} detik. ', en);
    note.hidden = false;
    poller = setInterval(check, pollMs);
    check();
  }

  function listen() {
    source = new EventSource(base + '/events');
    source.addEventListener('status', (e) => {
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

  show(status);
  if (status === 'pending') {
    tick();
    timer = setInterval(tick, 1000);
    listen();
  }

  const button = document.getElementById('simulate');
  if (button) {
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        const res = await fetch(base + '/simulate', { method: 'POST' });
        const body = await res.json();
        if (body.success) show(body.data.status);
        else statusText.textContent = body.error.message;
      } finally {
        button.disabled = false;
      }
    });
  }
})();
`;
