import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { html } from '../../../domain/html.js';
import { formatRupiah } from '../../../domain/money.js';
import { HANDLE_MAX, handleProblem, paymentLinkUrl } from '../../../domain/payment-link.js';
import type { Deps } from '../../../services/deps.js';
import { getPaymentLink, LINKS_PAGE_SIZE, listPaymentLinks, type MerchantLinkRow } from '../../../services/payment-links/list-links.js';
import { setPaymentLinkHandle } from '../../../services/payment-links/set-handle.js';
import { renderQrPng } from '../../../qr/qr-png.js';
import { consolePage, field } from '../context.js';
import { defineMessages, translator, type Translate } from '../../../presentation/messages.js';
import { redirectWithNotice, renderNotice, takeNotice } from '../notice.js';

const EXAMPLE_AMOUNT = 25_000;

const words = defineMessages(
  {
    title: 'Payment links',
    intro: 'A payment link lets anyone pay a merchant without code: the payer opens the link (or scans its QR), types the amount and pays on the checkout page. A link with the amount in it starts the payment at once.',
    merchant: 'Merchant',
    link: 'Link',
    state: 'State',
    none: 'no link yet',
    setUp: 'Set up',
    manage: 'Manage',
    disabled: 'disabled',
    noMerchants: 'There are no merchants to show.',
    newer: 'Previous',
    older: 'Next',
    pageTitle: 'Payment link: {name}',
    handle: 'Handle',
    handleHint: '3 to 32 characters: letters a-z, digits and "-", starting with a letter or a digit. The link is {base}/pay/<handle>.',
    save: 'Save',
    saved: 'The payment link is saved.',
    removed: 'The payment link is removed: its address no longer opens a payment.',
    required: 'Type a handle.',
    length: 'A handle has 3 to 32 characters.',
    characters: 'A handle may contain only letters a-z, digits and "-".',
    start: 'A handle must start with a letter or a digit.',
    reserved: 'This handle is reserved for the gateway itself. Choose another.',
    taken: 'The handle "{handle}" is taken by another merchant. Choose another.',
    disabledNote: 'This merchant is disabled: its link tells payers that payments are closed.',
    waitingNote: 'Live payments of this merchant wait for an operator\'s approval: until then its link tells payers that payments are not open yet.',
    waiting: 'awaiting approval',
    yourLink: 'The link',
    linkText: 'The payer types the amount:',
    fixedText: 'A fixed amount ({amount}):',
    refText: 'With your order reference (the same reference always opens the same payment):',
    qr: 'QR code of {url}',
    print: 'Print',
    remove: 'Remove link',
    removeConfirm: 'Remove this payment link? Printed QR codes of it stop working.',
    scan: 'Scan to pay',
    back: 'Back',
  },
  {
    title: 'Tautan pembayaran',
    intro: 'Tautan pembayaran memungkinkan siapa pun membayar merchant tanpa kode program: pembayar membuka tautan (atau memindai QR-nya), mengisi jumlah, lalu membayar di halaman checkout. Tautan yang memuat jumlah langsung memulai pembayaran.',
    merchant: 'Merchant',
    link: 'Tautan',
    state: 'Status',
    none: 'belum ada tautan',
    setUp: 'Siapkan',
    manage: 'Kelola',
    disabled: 'nonaktif',
    noMerchants: 'Tidak ada merchant untuk ditampilkan.',
    newer: 'Sebelumnya',
    older: 'Berikutnya',
    pageTitle: 'Tautan pembayaran: {name}',
    handle: 'Handle',
    handleHint: '3 sampai 32 karakter: huruf a-z, angka, dan "-", diawali huruf atau angka. Tautannya {base}/pay/<handle>.',
    save: 'Simpan',
    saved: 'Tautan pembayaran disimpan.',
    removed: 'Tautan pembayaran dihapus: alamatnya tidak lagi membuka pembayaran.',
    required: 'Isi handle.',
    length: 'Handle terdiri dari 3 sampai 32 karakter.',
    characters: 'Handle hanya boleh berisi huruf a-z, angka, dan "-".',
    start: 'Handle harus diawali huruf atau angka.',
    reserved: 'Handle ini dicadangkan untuk gateway. Pilih yang lain.',
    taken: 'Handle "{handle}" sudah dipakai merchant lain. Pilih yang lain.',
    disabledNote: 'Merchant ini nonaktif: tautannya memberi tahu pembayar bahwa pembayaran ditutup.',
    waitingNote: 'Pembayaran live merchant ini menunggu persetujuan operator: sampai saat itu tautannya memberi tahu pembayar bahwa pembayaran belum dibuka.',
    waiting: 'menunggu persetujuan',
    yourLink: 'Tautannya',
    linkText: 'Pembayar mengisi jumlahnya:',
    fixedText: 'Jumlah tetap ({amount}):',
    refText: 'Dengan referensi pesanan Anda (referensi yang sama selalu membuka pembayaran yang sama):',
    qr: 'Kode QR untuk {url}',
    print: 'Cetak',
    remove: 'Hapus tautan',
    removeConfirm: 'Hapus tautan pembayaran ini? QR yang sudah dicetak tidak akan berfungsi lagi.',
    scan: 'Pindai untuk membayar',
    back: 'Kembali',
  },
);

type Word = keyof typeof words.en;
type Problem = 'required' | 'length' | 'characters' | 'start' | 'reserved' | 'taken';
const PROBLEMS: readonly Problem[] = ['required', 'length', 'characters', 'start', 'reserved', 'taken'];

interface LinkQuery {
  error?: string;
  handle?: string;
  page?: string;
}

/** /dashboard/links: each merchant the viewer may see, its payment link, and the link's printable QR. */
export async function linkRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  const hide = { schema: { hide: true } };
  const base = deps.config.publicBaseUrl;

  scope.get<{ Querystring: LinkQuery }>('/links', hide, async (request, reply) => {
    const page = consolePage(request, reply);
    const t = translator(words, page.lang);
    const number = /^[1-9][0-9]{0,5}$/.test(request.query.page ?? '') ? Number(request.query.page) : 1;
    const { rows, total } = await listPaymentLinks(deps, page.viewer, number);
    const pager = html`<nav class="pager">${number > 1 ? html`<a href="/dashboard/links?page=${number - 1}">${t('newer')}</a>` : ''}${
      number * LINKS_PAGE_SIZE < total ? html`<a href="/dashboard/links?page=${number + 1}">${t('older')}</a>` : ''
    }</nav>`;
    const body = html`<h1>${t('title')}</h1>
<p class="muted">${t('intro')}</p>
${
  rows.length === 0
    ? html`<p class="card muted">${t('noMerchants')}</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th>${t('merchant')}</th><th>${t('link')}</th><th class="hide-narrow">${t('state')}</th><th><span class="hide-narrow">${t('manage')}</span></th></tr></thead>
<tbody>${rows.map(
        (m) => html`<tr><td>${m.name}<div class="muted mono hide-narrow">${m.id}</div></td>
<td>${m.payment_link_handle ? html`<span class="mono">/pay/${m.payment_link_handle}</span>` : html`<span class="muted">${t('none')}</span>`}</td>
<td class="hide-narrow">${
          m.disabled_at !== null
            ? html`<span class="badge disabled">${t('disabled')}</span>`
            : m.live_approved_at === null
              ? html`<span class="badge pending">${t('waiting')}</span>`
              : ''
        }</td>
<td><a href="/dashboard/links/${m.id}">${m.payment_link_handle ? t('manage') : t('setUp')}</a></td></tr>`,
      )}</tbody></table></div>${pager}`
}`;
    return page.send(t('title'), 'links', body);
  });

  scope.get<{ Params: { merchantId: string }; Querystring: LinkQuery }>('/links/:merchantId', hide, async (request, reply) => {
    const page = consolePage(request, reply);
    const t = translator(words, page.lang);
    const m = await getPaymentLink(deps, page.viewer, request.params.merchantId);
    const problem = PROBLEMS.find((p) => p === request.query.error);
    const typed = problem ? (request.query.handle ?? '').slice(0, 100) : (m.payment_link_handle ?? '');
    const done = takeNotice(request, reply);
    const notice = problem ? html`<p class="notice error" role="alert">${t(problem, { handle: typed })}</p>` : renderNotice(done);
    const body = html`<h1>${t('pageTitle', { name: m.name })}</h1>
${notice}
${m.disabled_at !== null ? html`<p class="notice">${t('disabledNote')}</p>` : m.live_approved_at === null ? html`<p class="notice">${t('waitingNote')}</p>` : ''}
<section class="card">
<form method="post" action="/dashboard/links/${m.id}">
<input type="hidden" name="_csrf" value="${page.csrf}">
<label for="link-handle">${t('handle')}</label>
<input id="link-handle" name="handle" value="${typed}" maxlength="${HANDLE_MAX + 20}" autocomplete="off" autocapitalize="none" spellcheck="false" required aria-describedby="link-handle-hint">
<p class="muted" id="link-handle-hint">${t('handleHint', { base })}</p>
<button type="submit">${t('save')}</button>
</form>
</section>
${m.payment_link_handle ? linkCard(t, m, m.payment_link_handle, base, page.csrf) : ''}
<p><a href="/dashboard/links">${t('back')}</a></p>`;
    return page.send(t('pageTitle', { name: m.name }), 'links', body);
  });

  scope.post<{ Params: { merchantId: string } }>('/links/:merchantId', hide, async (request, reply) => {
    const page = consolePage(request, reply);
    const id = request.params.merchantId;
    const typed = field(request.body, 'handle');
    try {
      await setPaymentLinkHandle(deps, page.viewer, id, typed);
      return redirectWithNotice(reply, `/dashboard/links/${encodeURIComponent(id)}`, { kind: 'success', text: translator(words, page.lang)('saved') });
    } catch (err) {
      const problem = problemOf(err, typed);
      if (!problem) throw err;
      const query = new URLSearchParams({ error: problem, handle: typed.slice(0, 100) });
      return reply.redirect(`/dashboard/links/${encodeURIComponent(id)}?${query}`, 303);
    }
  });

  scope.post<{ Params: { merchantId: string } }>('/links/:merchantId/remove', hide, async (request, reply) => {
    const page = consolePage(request, reply);
    await setPaymentLinkHandle(deps, page.viewer, request.params.merchantId, null);
    return redirectWithNotice(reply, `/dashboard/links/${encodeURIComponent(request.params.merchantId)}`, { kind: 'success', text: translator(words, page.lang)('removed') });
  });

  scope.get<{ Params: { merchantId: string } }>('/links/:merchantId/qr.png', hide, async (request, reply) => {
    const page = consolePage(request, reply);
    const m = await getPaymentLink(deps, page.viewer, request.params.merchantId);
    if (!m.payment_link_handle) throw new AppError('not_found', 'this merchant has no payment link');
    // Large modules: it is printed and scanned from a counter or a wall.
    const png = renderQrPng(paymentLinkUrl(base, m.payment_link_handle), { scale: 12 });
    return reply.type('image/png').send(png);
  });

  scope.get<{ Params: { merchantId: string } }>('/links/:merchantId/print', hide, async (request, reply) => printView(deps, request, reply));
}

/** The link, its fixed-amount and ref examples, its QR, and the ways to print or remove it. */
function linkCard(t: Translate<Word>, m: MerchantLinkRow, handle: string, base: string, csrf: string) {
  const url = paymentLinkUrl(base, handle);
  const fixed = paymentLinkUrl(base, handle, EXAMPLE_AMOUNT);
  return html`<section class="card">
<h2>${t('yourLink')}</h2>
<dl class="stacked">
<dt>${t('linkText')}</dt><dd><a class="mono" id="payment-link" href="${url}">${url}</a></dd>
<dt>${t('fixedText', { amount: formatRupiah(EXAMPLE_AMOUNT) })}</dt><dd><a class="mono" href="${fixed}">${fixed}</a></dd>
<dt>${t('refText')}</dt><dd class="mono">${fixed}?ref=ORDER-1001</dd>
</dl>
<p><img class="link-qr" src="/dashboard/links/${m.id}/qr.png" alt="${t('qr', { url })}" width="240" height="240"></p>
<p><a class="button" href="/dashboard/links/${m.id}/print">${t('print')}</a></p>
<form method="post" action="/dashboard/links/${m.id}/remove" data-confirm="${t('removeConfirm')}">
<input type="hidden" name="_csrf" value="${csrf}">
<button type="submit" class="danger">${t('remove')}</button>
</form>
</section>`;
}

/** A sheet with only the QR, the merchant's name and the link when printed (console.css, @media print). */
async function printView(deps: Deps, request: FastifyRequest<{ Params: { merchantId: string } }>, reply: FastifyReply): Promise<FastifyReply> {
  const page = consolePage(request, reply);
  const t = translator(words, page.lang);
  const m = await getPaymentLink(deps, page.viewer, request.params.merchantId);
  if (!m.payment_link_handle) throw new AppError('not_found', 'this merchant has no payment link');
  const url = paymentLinkUrl(deps.config.publicBaseUrl, m.payment_link_handle);
  const body = html`<div class="print-sheet">
<h1>${m.merchant_name}</h1>
<p class="muted">${m.merchant_city}</p>
<img src="/dashboard/links/${m.id}/qr.png" alt="${t('qr', { url })}" width="320" height="320">
<p class="mono">${url}</p>
<p lang="id">Pindai untuk membayar</p>
<p lang="en">Scan to pay</p>
</div>
<p class="no-print"><button type="button" data-print>${t('print')}</button> <a href="/dashboard/links/${m.id}">${t('back')}</a></p>`;
  return page.send(t('pageTitle', { name: m.name }), 'links', body);
}

/** Which refusal a failed save was, for the notice; null for anything else (shown as an error page). */
function problemOf(err: unknown, typed: string): Problem | null {
  if (!(err instanceof AppError)) return null;
  if (err.code === 'handle_taken') return 'taken';
  if (err.code !== 'invalid_parameter' || err.param !== 'handle') return null;
  const handle = typed.trim().toLowerCase();
  return handle === '' ? 'required' : (handleProblem(handle) ?? 'characters');
}
