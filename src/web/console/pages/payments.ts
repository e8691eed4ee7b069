// /dashboard/payments: reported payments, newest first, and for every unmatched one the transactions it
// could belong to with a form that assigns it (services/payments/assign-payment.ts, audited).
import { userActor } from '../../../domain/actor.js';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { html } from '../../../domain/html.js';
import type { Mode, PaymentStatus, TransactionsTable } from '../../../storage/schema.js';
import type { Deps } from '../../../services/deps.js';
import { assignPayment } from '../../../services/payments/assign-payment.js';
import { reviewPayments } from '../../../services/payments/review-payments.js';
import { merchantScope } from '../../../services/users/viewer.js';
import { listVisibleMerchants } from '../../../services/merchants/list-visible-merchants.js';
import type { PaymentListRow } from '../../../storage/queries/payment-review.js';
import { consolePage, field, safeNext } from '../context.js';
import { defineMessages, translator, type Translate } from '../../../presentation/messages.js';
import { formatTime } from '../../../presentation/format.js';
import { formatRupiah } from '../../../domain/money.js';
import { redirectWithNotice, renderNotice, takeNotice } from '../notice.js';
import { queryValue } from './form-fields.js';

const words = defineMessages(
  {
    title: 'Payments',
    status: 'Status',
    mode: 'Mode',
    all: 'All',
    matched: 'matched',
    unmatched: 'unmatched',
    live: 'live',
    test: 'test',
    show: 'Show',
    none: 'No {status} payments to show.',
    received: 'Received',
    paid: 'Paid (reported)',
    amount: 'Amount',
    source: 'Source',
    reference: 'Reference',
    payer: 'Payer',
    issuer: 'Issuer',
    merchant: 'Merchant',
    transaction: 'Transaction',
    review: 'Review',
    older: 'Older payments',
    newest: 'Newest payments',
    toReview: 'Unmatched payments on this page',
    unmatchedPayment: 'Unmatched payment of {amount}',
    reason: 'Why it did not match',
    candidates: 'Transactions it could belong to',
    noCandidates:
      'No unpaid transaction of this merchant and mode has this total around the time of the payment. If you know which transaction it pays, enter its id; its total must be exactly this amount.',
    created: 'Created',
    ends: 'Expires or ended',
    assign: 'Assign',
    assignHint: 'The id of the transaction this payment pays (trx_…). Assigning marks it paid and is recorded in the audit log.',
    txPaid: 'paid',
    txPaidLate: 'paid late',
    txPending: 'pending',
    txExpired: 'expired',
    txCancelled: 'cancelled',
    reason_no_matching_transaction: 'No open transaction had this total.',
    reason_amount_mismatch: 'The transaction it named has another total.',
    reason_transaction_already_paid: 'The transaction it was for is already paid.',
    reason_paid_before_creation: 'It was paid before the transaction holding this total was created.',
    reason_ambiguous_amount: 'More than one transaction held this total.',
    reason_merchant_disabled: 'Its merchant is disabled: a report is kept, but pays nothing until an operator assigns it.',
    assigned: 'Payment {payment} now pays {trxid}; the transaction is paid.',
    assignedLate: 'Payment {payment} now pays {trxid}; the transaction is paid (late).',
    trxidRequired: 'Enter the id of the transaction this payment pays.',
    trxidMalformed: '“{trxid}” is not a transaction id: they look like trx_….',
    notFoundTx: "There is no transaction {trxid} of this payment's merchant and mode.",
    alreadyMatched: 'This payment is already matched to a transaction; nothing was changed.',
    alreadyPaid: 'Transaction {trxid} is already paid; nothing was changed.',
    mismatch: "The total of transaction {trxid} is not this payment's amount; nothing was changed.",
  },
  {
    title: 'Pembayaran',
    status: 'Status',
    mode: 'Mode',
    all: 'Semua',
    matched: 'cocok',
    unmatched: 'tak cocok',
    live: 'live',
    test: 'uji',
    show: 'Tampilkan',
    none: 'Tidak ada pembayaran {status} untuk ditampilkan.',
    received: 'Diterima',
    paid: 'Dibayar (dilaporkan)',
    amount: 'Jumlah',
    source: 'Sumber',
    reference: 'Referensi',
    payer: 'Pembayar',
    issuer: 'Penerbit',
    merchant: 'Merchant',
    transaction: 'Transaksi',
    review: 'Tinjau',
    older: 'Pembayaran lebih lama',
    newest: 'Pembayaran terbaru',
    toReview: 'Pembayaran tak cocok di halaman ini',
    unmatchedPayment: 'Pembayaran tak cocok sebesar {amount}',
    reason: 'Alasan tidak cocok',
    candidates: 'Transaksi yang mungkin dibayarnya',
    noCandidates:
      'Tidak ada transaksi belum dibayar dari merchant dan mode ini dengan total ini di sekitar waktu pembayaran. Jika Anda tahu transaksi mana yang dibayar, masukkan id-nya; totalnya harus persis sebesar jumlah ini.',
    created: 'Dibuat',
    ends: 'Kedaluwarsa atau berakhir',
    assign: 'Tetapkan',
    assignHint: 'Id transaksi yang dibayar oleh pembayaran ini (trx_…). Menetapkan menandainya lunas dan dicatat di log audit.',
    txPaid: 'lunas',
    txPaidLate: 'lunas terlambat',
    txPending: 'menunggu',
    txExpired: 'kedaluwarsa',
    txCancelled: 'dibatalkan',
    reason_no_matching_transaction: 'Tidak ada transaksi terbuka dengan total ini.',
    reason_amount_mismatch: 'Transaksi yang disebutkannya memiliki total lain.',
    reason_transaction_already_paid: 'Transaksi yang dituju sudah lunas.',
    reason_paid_before_creation: 'Dibayar sebelum transaksi dengan total ini dibuat.',
    reason_ambiguous_amount: 'Lebih dari satu transaksi memegang total ini.',
    reason_merchant_disabled: 'Merchant-nya dinonaktifkan: laporannya disimpan, tetapi tidak membayar apa pun sampai operator menetapkannya.',
    assigned: 'Pembayaran {payment} kini membayar {trxid}; transaksi sudah lunas.',
    assignedLate: 'Pembayaran {payment} kini membayar {trxid}; transaksi sudah lunas (terlambat).',
    trxidRequired: 'Masukkan id transaksi yang dibayar oleh pembayaran ini.',
    trxidMalformed: '“{trxid}” bukan id transaksi: bentuknya trx_….',
    notFoundTx: 'Tidak ada transaksi {trxid} milik merchant dan mode pembayaran ini.',
    alreadyMatched: 'Pembayaran ini sudah cocok dengan sebuah transaksi; tidak ada yang diubah.',
    alreadyPaid: 'Transaksi {trxid} sudah lunas; tidak ada yang diubah.',
    mismatch: 'Total transaksi {trxid} tidak sama dengan jumlah pembayaran ini; tidak ada yang diubah.',
  },
);

type Word = Parameters<Translate<keyof (typeof words)['en']>>[0];

const STATUSES: readonly PaymentStatus[] = ['unmatched', 'matched'];
const MODES: readonly Mode[] = ['live', 'test'];

export async function paymentRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  scope.get('/payments', { schema: { hide: true } }, async (request, reply) => {
    const page = consolePage(request, reply);
    const t = translator(words, page.lang);
    const notice = takeNotice(request, reply);
    const askedStatus = queryValue(request.query, 'status');
    const askedMode = queryValue(request.query, 'mode');
    // Always one status: each is read newest first along an index (payments_status_received); both at
    // once would scan and sort the whole table. Unmatched, the ones to review, is the default.
    const status = STATUSES.find((s) => s === askedStatus) ?? 'unmatched';
    const mode = MODES.find((m) => m === askedMode) ?? null;
    const cursor = queryValue(request.query, 'before');
    const [review, merchants] = await Promise.all([reviewPayments(deps, page.viewer, { status, mode, cursor }), listVisibleMerchants(deps, page.viewer)]);
    const names = new Map(merchants.map((m) => [m.id, m.name]));
    const when = (ms: number) => formatTime(ms, page.lang);
    const filterQuery = (extra: Record<string, string>) => {
      return `/dashboard/payments?${new URLSearchParams({ status, ...(mode ? { mode } : {}), ...extra }).toString()}`;
    };
    const txState = (p: PaymentListRow) =>
      p.transaction_id === null
        ? '–'
        : html`<a class="mono" href="/dashboard/transactions/${p.transaction_id}">${p.transaction_id}</a> ${
            p.transaction_status === null ? '' : html`<span class="badge ${p.transaction_status}">${txWord(t, p.transaction_status, p.transaction_paid_late === 1)}</span>`
          }`;
    const unmatched = review.payments.filter((p) => p.status === 'unmatched');

    const body = html`<h1>${t('title')}</h1>
${renderNotice(notice)}
<form method="get" action="/dashboard/payments" class="filters card">
<div><label for="payments-status">${t('status')}</label>
<select id="payments-status" name="status" data-autosubmit>
${STATUSES.map((s) => html`<option value="${s}"${status === s ? html` selected` : ''}>${t(s)}</option>`)}
</select></div>
<div><label for="payments-mode">${t('mode')}</label>
<select id="payments-mode" name="mode" data-autosubmit>
<option value=""${mode === null ? html` selected` : ''}>${t('all')}</option>
${MODES.map((m) => html`<option value="${m}"${mode === m ? html` selected` : ''}>${t(m)}</option>`)}
</select></div>
<div><button type="submit" class="secondary">${t('show')}</button></div>
</form>
${
  review.payments.length === 0
    ? html`<p class="card muted">${t('none', { status: t(status) })}</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th>${t('received')}</th><th class="num">${t('amount')}</th><th>${t('status')}</th><th class="hide-narrow">${t('source')}</th><th class="hide-narrow">${t('payer')}</th><th class="hide-narrow">${t('merchant')}</th><th>${t('transaction')}</th></tr></thead>
<tbody>${review.payments.map(
        (p) => html`<tr><td>${when(p.received_at)}</td><td class="num">${formatRupiah(p.amount)}</td>
<td><span class="badge ${p.status}">${t(p.status)}</span>${p.mode === 'test' ? html` <span class="badge">${t('test')}</span>` : ''}</td>
<td class="mono hide-narrow">${p.source}</td><td class="hide-narrow">${[p.payer_name, p.issuer, p.reference].filter((x) => x !== null && x !== '').join(' · ')}</td>
<td class="hide-narrow">${names.get(p.merchant_id) ?? p.merchant_id}</td>
<td>${p.status === 'unmatched' ? html`<a href="#pay-${p.id}">${t('review')}</a>` : txState(p)}</td></tr>`,
      )}</tbody></table></div>`
}
<nav class="pager" aria-label="${t('title')}">
${cursor !== null ? html`<a href="${filterQuery({})}">${t('newest')}</a>` : ''}
${review.next !== null ? html`<a href="${filterQuery({ before: review.next })}">${t('older')}</a>` : ''}
</nav>
${
  unmatched.length === 0
    ? ''
    : html`<h2>${t('toReview')}</h2>
${unmatched.map((p) => {
  const candidates = review.candidates.get(p.id) ?? [];
  return html`<section class="card review" id="pay-${p.id}" aria-labelledby="pay-${p.id}-title">
<h3 id="pay-${p.id}-title">${t('unmatchedPayment', { amount: formatRupiah(p.amount) })}</h3>
<dl class="fields">
<dt>${t('amount')}</dt><dd>${formatRupiah(p.amount)}</dd>
<dt>${t('paid')}</dt><dd>${when(p.paid_at)}</dd>
<dt>${t('received')}</dt><dd>${when(p.received_at)}</dd>
<dt>${t('source')}</dt><dd class="mono">${p.source}</dd>
<dt>${t('reference')}</dt><dd>${p.reference ?? '–'}</dd>
<dt>${t('payer')}</dt><dd>${p.payer_name ?? '–'}</dd>
<dt>${t('issuer')}</dt><dd>${p.issuer ?? '–'}</dd>
<dt>${t('merchant')}</dt><dd>${names.get(p.merchant_id) ?? p.merchant_id} (${t(p.mode)})</dd>
<dt>${t('reason')}</dt><dd>${reasonText(t, p.reason)}</dd>
</dl>
<h4>${t('candidates')}</h4>
${
  candidates.length === 0
    ? html`<p class="muted">${t('noCandidates')}</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th>${t('transaction')}</th><th class="num">${t('amount')}</th><th>${t('created')}</th><th class="hide-narrow">${t('ends')}</th><th>${t('status')}</th></tr></thead>
<tbody>${candidates.map(
        (c) => html`<tr><td class="mono">${c.id}</td><td class="num">${formatRupiah(c.total_amount)}</td><td>${when(c.created_at)}</td>
<td class="hide-narrow">${when(c.cancelled_at ?? c.expires_at)}</td><td><span class="badge ${c.status}">${txWord(t, c.status, false)}</span></td></tr>`,
      )}</tbody></table></div>`
}
<form method="post" action="/dashboard/payments/${p.id}/assign" class="assign">
<input type="hidden" name="_csrf" value="${page.csrf}">
<input type="hidden" name="back" value="${request.url}">
<label for="assign-${p.id}">${t('transaction')}</label>
<input id="assign-${p.id}" name="trxid" required maxlength="100" autocomplete="off" spellcheck="false" list="candidates-${p.id}" aria-describedby="assign-${p.id}-hint" value="${candidates.length === 1 ? candidates[0]!.id : ''}">
<datalist id="candidates-${p.id}">${candidates.map((c) => html`<option value="${c.id}">${formatRupiah(c.total_amount)} · ${when(c.created_at)}</option>`)}</datalist>
<p class="muted" id="assign-${p.id}-hint">${t('assignHint')}</p>
<button type="submit">${t('assign')}</button>
</form>
</section>`;
})}`
}`;
    return page.send(t('title'), 'payments', body);
  });

  scope.post<{ Params: { id: string } }>('/payments/:id/assign', { schema: { hide: true } }, async (request, reply) => {
    const viewer = request.viewer!;
    const t = translator(words, request.consoleLang);
    const back = safeNext(field(request.body, 'back'), '/dashboard/payments?status=unmatched');
    const paymentId = request.params.id;
    // A malformed id names nothing: the same 404 as an unknown or another merchant's payment.
    if (!/^pay_[0-9A-Za-z]{1,80}$/.test(paymentId)) throw new AppError('payment_not_found', 'no such payment');
    const trxid = field(request.body, 'trxid').trim();
    const refuse = (key: Word, params?: Record<string, string>) => redirectWithNotice(reply, back, { kind: 'error', text: t(key, params) });
    if (trxid === '') return refuse('trxidRequired');
    if (!/^trx_[0-9A-Za-z]{1,80}$/.test(trxid)) return refuse('trxidMalformed', { trxid: trxid.slice(0, 100) });
    try {
      const { payment, transaction } = await assignPayment(deps, { paymentId, trxid, actor: userActor(viewer), merchants: merchantScope(viewer) });
      return redirectWithNotice(reply, back, {
        kind: 'success',
        text: t(transaction.paid_late === 1 ? 'assignedLate' : 'assigned', { payment: payment.id, trxid: transaction.id }),
      });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      switch (err.code) {
        case 'transaction_not_found':
          return refuse('notFoundTx', { trxid });
        case 'payment_already_matched':
          return refuse('alreadyMatched');
        case 'transaction_already_paid':
          return refuse('alreadyPaid', { trxid });
        case 'amount_mismatch':
          return refuse('mismatch', { trxid });
        default:
          // payment_not_found (unknown or another merchant's) is the 404 page.
          throw err;
      }
    }
  });
}

function reasonText(t: Translate<Word>, reason: string | null): string {
  switch (reason) {
    case 'no_matching_transaction':
    case 'amount_mismatch':
    case 'transaction_already_paid':
    case 'paid_before_creation':
    case 'ambiguous_amount':
    case 'merchant_disabled':
      return t(`reason_${reason}`);
    default:
      return reason ?? '–';
  }
}

function txWord(t: Translate<Word>, status: TransactionsTable['status'], late: boolean): string {
  switch (status) {
    case 'paid':
      return t(late ? 'txPaidLate' : 'txPaid');
    case 'pending':
      return t('txPending');
    case 'expired':
      return t('txExpired');
    case 'cancelled':
      return t('txCancelled');
  }
}
