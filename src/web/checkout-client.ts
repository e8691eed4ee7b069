// Served as /checkout/assets/checkout.js. Kept as a string of plain browser JavaScript so the page needs
// no bundler; it only enhances a page that is already complete without it.
export const CHECKOUT_JS = `(() => {
  const main = document.getElementById('checkout');
  if (!main) return;
  const view = JSON.parse(main.dataset.checkout);
  const texts = {
    pending: 'Menunggu pembayaran… / Waiting for payment…',
    paid: 'Pembayaran diterima. Terima kasih! / Payment received. Thank you!',
    expired: 'Kode QRIS sudah kedaluwarsa. / This QRIS code has expired.',
    cancelled: 'Transaksi dibatalkan. / This transaction was cancelled.',
  };
  const statusText = document.getElementById('status-text');
  const countdown = document.getElementById('countdown');
  const expiresAt = Date.parse(view.expires_at);
  let status = view.status;
  let source = null;
  let timer = null;

  function show(next) {
    status = next;
    main.dataset.status = next;
    statusText.textContent = texts[next] || next;
    if (next !== 'pending') {
      if (source) source.close();
      if (timer) clearInterval(timer);
      countdown.textContent = '';
    }
  }

  function tick() {
    const left = Math.max(0, Math.round((expiresAt - Date.now()) / 1000));
    const m = Math.floor(left / 60), s = left % 60;
    countdown.textContent = String(m).padStart(2, '0') + ':' + String(s).padStart(2, '0');
    if (left === 0 && status === 'pending') show('expired');
  }

  show(status);
  if (status === 'pending') {
    tick();
    timer = setInterval(tick, 1000);
    source = new EventSource('/checkout/' + encodeURIComponent(view.trxid) + '/events');
    source.addEventListener('status', (e) => {
      const data = JSON.parse(e.data);
      if (data.status !== status) show(data.status);
    });
  }

  const button = document.getElementById('simulate');
  if (button) {
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        const res = await fetch('/checkout/' + encodeURIComponent(view.trxid) + '/simulate', { method: 'POST' });
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
