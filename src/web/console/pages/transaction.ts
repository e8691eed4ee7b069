// One transaction in the console: its fields, its timeline (e-mails, payments, status changes, webhook
// deliveries with every attempt) and what may be done to it (cancel, confirm a payment by hand, resend
// a webhook event). Every action is a POST that answers with a 303 back here and a notice.
import { userActor } from '../../../domain/actor.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError, type ErrorCode } from '../../../domain/errors.js';
import { html, type SafeHtml } from '../../../domain/html.js';
import { isoTime } from '../../../domain/iso-time.js';
import { UNMATCHED_REASONS } from '../../../domain/matching.js';
import { transactionUrls } from '../../../domain/transaction.js';
import type { Deps } from '../../../services/deps.js';
import { confirmPayment } from '../../../services/payments/confirm-payment.js';
import { cancelTransaction } from '../../../services/transactions/cancel-transaction.js';
import { getTransactionTimeline, type DeliveryHistory, type TimelineEntry, type TransactionDetail } from '../../../services/transactions/get-transaction-timeline.js';
import { getVisibleTransaction } from '../../../services/transactions/get-visible-transaction.js';
import { resendTransactionEvent } from '../../../services/webhooks/resend-transaction-event.js';
import { consolePage, field, type ConsolePage } from '../context.js';
import { defineMessages, rupiah, translator, wibTime, type Translate } from '../i18n.js';
import { redirectWithNotice, takeNotice, type Notice } from '../notice.js';
import { statusBadge } from './transaction-status.js';

const words = defineMessages(
  {
    title: 'Transaction',
    back: 'All transactions',
    details: 'Details',
    status: 'Status',
    merchant: 'Merchant',
    mode: 'Mode',
    test: 'test',
    live: 'live',
    amount: 'Amount',
    uniqueCode: 'Unique code',
    total: 'Total',
    ref: 'Ref',
    email: 'E-mail',
    created: 'Created',
    expires: 'Expires',
    paid: 'Paid',
    cancelledAt: 'Cancelled',
    payment: 'Payment',
    paymentVia: '{source}, reference {reference}',
    acquirerReference: 'Acquirer reference',
    checkout: 'Checkout page',
    actions: 'Actions',
    noActions: 'A paid transaction has nothing left to do. Webhook events can be resent from the timeline.',
    cancel: 'Cancel',
    cancelHint: 'Cancels this pending transaction. A payment of its code that still arrives marks it paid late.',
    cancelConfirm: 'Cancel this transaction?',
    confirm: 'Confirm payment',
    confirmHint: "Records a payment you saw yourself (bank statement, wallet app) for this transaction's total.",
    confirmConfirm: 'Record a payment of this total with this reference?',
    reference: 'Reference',
    referenceHint: 'The bank or wallet reference of the payment, 1 to 128 characters.',
    timeline: 'Timeline',
    tlCreated: 'Created for {total}',
    tlPaid: 'Paid',
    tlPaidLate: 'Paid late (after it expired or was cancelled)',
    tlCancelled: 'Cancelled',
    tlExpired: 'Expired',
    tlPayment: 'Payment reported by {source}: {amount}',
    tlManual: 'Payment confirmed by hand: {amount}',
    tlPaymentRef: 'Reference {reference}',
    tlPaymentMatched: 'matched',
    tlPaymentUnmatched: 'unmatched: {reason}',
    tlAudit: '{action} by {actor}',
    tlEmail: '{kind} e-mail to {recipient}',
    tlEmailSent: '{kind} e-mail sent',
    tlEvent: 'Webhook event {type}',
    invoice: 'Invoice',
    receipt: 'Receipt',
    emailPending: 'queued',
    emailSent: 'sent',
    emailSkipped: 'skipped',
    emailFailed: 'failed',
    emailAttempts: '{count} attempts',
    'transaction.cancel': 'Cancel requested',
    'payment.confirm': 'Payment confirmed',
    'webhook.resend': 'Webhook resent',
    noEndpoints: 'No webhook endpoint was subscribed to this event.',
    deliveryTo: 'To',
    removedEndpoint: 'an endpoint removed since',
    deliveryPending: 'pending',
    deliverySucceeded: 'succeeded',
    deliveryFailed: 'failed',
    attempts: 'Attempts',
    noAttempts: 'Not attempted yet.',
    attemptTime: 'Time (WIB)',
    attemptCode: 'Status code',
    attemptDuration: 'Duration',
    attemptError: 'Error',
    resend: 'Resend',
    ms: '{n} ms',
    done_cancelled: 'The transaction is cancelled.',
    done_confirmed: 'The payment is recorded and the transaction is paid.',
    done_unmatched: 'The payment is recorded but did not match this transaction ({reason}). It is listed among unmatched payments.',
    done_resent: 'Queued {count} webhook deliveries to send now.',
    done_resent_one: 'Queued the webhook delivery to send now.',
    done_nothing: 'Nothing to resend: no enabled endpoint has a delivery of this event.',
    failed_transaction_already_paid: 'This transaction is already paid. Nothing was changed.',
    failed_transaction_expired: 'This transaction has expired and can no longer be cancelled. Nothing was changed.',
    failed_acquirer_unavailable: 'The acquirer could not be reached to void the code. Nothing was changed; try again later.',
    failed_acquirer_error: 'The acquirer refused to void the code. Nothing was changed.',
    failed_reference_already_recorded: 'A payment with this reference is already recorded. Nothing was changed.',
    badReference: 'Give the payment reference: 1 to 128 characters, without control characters.',
    no_matching_transaction: 'no matching transaction',
    amount_mismatch: 'the amount differs from the total',
    transaction_already_paid: 'already paid by another payment',
    paid_before_creation: 'paid before the transaction was created',
    ambiguous_amount: 'more than one transaction holds this amount',
    merchant_disabled: 'the merchant is disabled',
  },
  {
    title: 'Transaksi',
    back: 'Semua transaksi',
    details: 'Rincian',
    status: 'Status',
    merchant: 'Merchant',
    mode: 'Mode',
    test: 'uji',
    live: 'live',
    amount: 'Jumlah',
    uniqueCode: 'Kode unik',
    total: 'Total',
    ref: 'Ref',
    email: 'Email',
    created: 'Dibuat',
    expires: 'Kedaluwarsa pada',
    paid: 'Dibayar',
    cancelledAt: 'Dibatalkan',
    payment: 'Pembayaran',
    paymentVia: '{source}, referensi {reference}',
    acquirerReference: 'Referensi acquirer',
    checkout: 'Halaman pembayaran',
    actions: 'Tindakan',
    noActions: 'Transaksi yang sudah dibayar tidak perlu tindakan lagi. Event webhook dapat dikirim ulang dari riwayat.',
    cancel: 'Batalkan',
    cancelHint: 'Membatalkan transaksi yang menunggu ini. Pembayaran kodenya yang masih masuk menandainya dibayar terlambat.',
    cancelConfirm: 'Batalkan transaksi ini?',
    confirm: 'Konfirmasi pembayaran',
    confirmHint: 'Mencatat pembayaran yang Anda lihat sendiri (mutasi bank, aplikasi dompet) sebesar total transaksi ini.',
    confirmConfirm: 'Catat pembayaran sebesar total ini dengan referensi ini?',
    reference: 'Referensi',
    referenceHint: 'Referensi bank atau dompet dari pembayaran, 1 sampai 128 karakter.',
    timeline: 'Riwayat',
    tlCreated: 'Dibuat sebesar {total}',
    tlPaid: 'Dibayar',
    tlPaidLate: 'Dibayar terlambat (setelah kedaluwarsa atau dibatalkan)',
    tlCancelled: 'Dibatalkan',
    tlExpired: 'Kedaluwarsa',
    tlPayment: 'Pembayaran dilaporkan oleh {source}: {amount}',
    tlManual: 'Pembayaran dikonfirmasi manual: {amount}',
    tlPaymentRef: 'Referensi {reference}',
    tlPaymentMatched: 'cocok',
    tlPaymentUnmatched: 'tidak cocok: {reason}',
    tlAudit: '{action} oleh {actor}',
    tlEmail: 'Email {kind} ke {recipient}',
    tlEmailSent: 'Email {kind} terkirim',
    tlEvent: 'Event webhook {type}',
    invoice: 'tagihan',
    receipt: 'tanda terima',
    emailPending: 'antre',
    emailSent: 'terkirim',
    emailSkipped: 'dilewati',
    emailFailed: 'gagal',
    emailAttempts: '{count} percobaan',
    'transaction.cancel': 'Pembatalan diminta',
    'payment.confirm': 'Pembayaran dikonfirmasi',
    'webhook.resend': 'Webhook dikirim ulang',
    noEndpoints: 'Tidak ada endpoint webhook yang berlangganan event ini.',
    deliveryTo: 'Ke',
    removedEndpoint: 'endpoint yang sudah dihapus',
    deliveryPending: 'menunggu',
    deliverySucceeded: 'berhasil',
    deliveryFailed: 'gagal',
    attempts: 'Percobaan',
    noAttempts: 'Belum dicoba.',
    attemptTime: 'Waktu (WIB)',
    attemptCode: 'Kode status',
    attemptDuration: 'Durasi',
    attemptError: 'Galat',
    resend: 'Kirim ulang',
    ms: '{n} md',
    done_cancelled: 'Transaksi dibatalkan.',
    done_confirmed: 'Pembayaran tercatat dan transaksi lunas.',
    done_unmatched: 'Pembayaran tercatat tetapi tidak cocok dengan transaksi ini ({reason}). Pembayaran ada di daftar pembayaran tak cocok.',
    done_resent: '{count} pengiriman webhook diantrekan untuk dikirim sekarang.',
    done_resent_one: 'Pengiriman webhook diantrekan untuk dikirim sekarang.',
    done_nothing: 'Tidak ada yang dikirim ulang: tidak ada endpoint aktif yang punya pengiriman event ini.',
    failed_transaction_already_paid: 'Transaksi ini sudah dibayar. Tidak ada yang diubah.',
    failed_transaction_expired: 'Transaksi ini sudah kedaluwarsa dan tidak dapat dibatalkan. Tidak ada yang diubah.',
    failed_acquirer_unavailable: 'Acquirer tidak dapat dihubungi untuk membatalkan kode. Tidak ada yang diubah; coba lagi nanti.',
    failed_acquirer_error: 'Acquirer menolak membatalkan kode. Tidak ada yang diubah.',
    failed_reference_already_recorded: 'Pembayaran dengan referensi ini sudah tercatat. Tidak ada yang diubah.',
    badReference: 'Isi referensi pembayaran: 1 sampai 128 karakter, tanpa karakter kontrol.',
    no_matching_transaction: 'tidak ada transaksi yang cocok',
    amount_mismatch: 'jumlahnya berbeda dari total',
    transaction_already_paid: 'sudah dibayar oleh pembayaran lain',
    paid_before_creation: 'dibayar sebelum transaksi dibuat',
    ambiguous_amount: 'lebih dari satu transaksi memegang jumlah ini',
    merchant_disabled: 'merchant dinonaktifkan',
  },
);
type Key = keyof typeof words.en;
type T = Translate<Key>;

/** Action errors that become a notice on the page (anything else is an error page). */
const NOTICE_ERRORS = ['transaction_already_paid', 'transaction_expired', 'acquirer_unavailable', 'acquirer_error', 'reference_already_recorded'] as const;
type NoticeError = (typeof NOTICE_ERRORS)[number];
const DONE = ['cancelled', 'confirmed', 'unmatched', 'resent', 'nothing'] as const;

/** What an action ended in and, for some, a reason or a count: the notice the page then shows. */
type Outcome = { done: (typeof DONE)[number]; reason?: string; count?: number };
type Params = { trxid: string };

export function transactionPageRoutes(scope: FastifyInstance, deps: Deps): void {
  scope.get<{ Params: Params }>('/transactions/:trxid', { schema: { hide: true } }, async (request, reply) => {
    const page = consolePage(request, reply);
    const detail = await getTransactionTimeline(deps, page.viewer, request.params.trxid);
    return sendDetail(deps, page, detail, takeNotice(request, reply));
  });

  scope.post<{ Params: Params }>('/transactions/:trxid/cancel', { schema: { hide: true } }, async (request, reply) => {
    const viewer = request.viewer!;
    const tx = await getVisibleTransaction(deps, viewer, request.params.trxid);
    return act(reply, translator(words, request.consoleLang), tx.id, async () => {
      await cancelTransaction(deps, { trxid: tx.id, owner: { merchantId: tx.merchant_id, mode: tx.mode }, actor: userActor(viewer) });
      return { done: 'cancelled' };
    });
  });

  scope.post<{ Params: Params }>('/transactions/:trxid/confirm', { schema: { hide: true } }, async (request, reply) => {
    const viewer = request.viewer!;
    const tx = await getVisibleTransaction(deps, viewer, request.params.trxid);
    const reference = field(request.body, 'reference');
    try {
      return await act(reply, translator(words, request.consoleLang), tx.id, async () => {
        const result = await confirmPayment(deps, { trxid: tx.id, reference, amount: null, actor: userActor(viewer) });
        return result.outcome === 'matched' ? { done: 'confirmed' } : { done: 'unmatched', reason: result.reason ?? 'no_matching_transaction' };
      });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'invalid_parameter' || err.param !== 'reference') throw err;
      // A bad field: the page again, with what was typed and what is wrong with it.
      const page = consolePage(request, reply);
      const t = translator(words, page.lang);
      const detail = await getTransactionTimeline(deps, viewer, tx.id);
      return sendDetail(deps, page, detail, { kind: 'error', text: t('badReference') }, { reference: reference.slice(0, 200), invalid: true }, 400);
    }
  });

  scope.post<{ Params: Params }>('/transactions/:trxid/resend', { schema: { hide: true } }, async (request, reply) => {
    const viewer = request.viewer!;
    const trxid = request.params.trxid;
    const eventId = field(request.body, 'event');
    // Another merchant's transaction, or an event not of this transaction, is a 404 page (from the service).
    return act(reply, translator(words, request.consoleLang), trxid, async () => {
      const result = await resendTransactionEvent(deps, viewer, { trxid, eventId });
      return result.requeued === 0 ? { done: 'nothing' } : { done: 'resent', count: result.requeued };
    });
  });
}

/**
 * Runs an action and answers with a 303 back to the transaction's page, its outcome in a notice. The
 * action's expected refusals become an error notice; anything else is the console's error page.
 */
async function act(reply: FastifyReply, t: T, trxid: string, action: () => Promise<Outcome>): Promise<FastifyReply> {
  const back = `/dashboard/transactions/${trxid}`;
  try {
    return redirectWithNotice(reply, back, noticeOf(t, await action()));
  } catch (err) {
    if (err instanceof AppError && (NOTICE_ERRORS as readonly ErrorCode[]).includes(err.code)) {
      return redirectWithNotice(reply, back, { kind: 'error', text: t(`failed_${err.code as NoticeError}`) });
    }
    throw err;
  }
}

/** What the page says of an action's outcome. */
function noticeOf(t: T, outcome: Outcome): Notice {
  const { done, reason, count = 0 } = outcome;
  const why = reason !== undefined && (UNMATCHED_REASONS as readonly string[]).includes(reason) ? t(reason as Key) : '?';
  const key = done === 'resent' && count === 1 ? 'done_resent_one' : (`done_${done}` as const);
  return { kind: done === 'unmatched' ? 'error' : 'success', text: t(key, { reason: why, count: String(count) }) };
}

function sendDetail(
  deps: Deps,
  page: ConsolePage,
  detail: TransactionDetail,
  notice: Notice | null,
  form: { reference: string; invalid: boolean } = { reference: '', invalid: false },
  status = 200,
): FastifyReply {
  const t = translator(words, page.lang);
  const tx = detail.transaction;
  const when = (ms: number | null) => (ms === null ? '–' : wibTime(ms, page.lang));
  const badge = statusBadge(detail.status, tx.paid_late === 1, page.lang);
  const p = detail.payment;
  const fields: Array<[string, SafeHtml | string]> = [
    [t('status'), badge],
    [t('merchant'), html`${detail.merchantName ?? ''} <span class="mono muted">${tx.merchant_id}</span>`],
    [t('mode'), t(tx.mode)],
    [t('amount'), rupiah(tx.amount)],
    [t('uniqueCode'), String(tx.unique_code)],
    [t('total'), html`<strong>${rupiah(tx.total_amount)}</strong>`],
    [t('ref'), html`<span class="mono">${tx.ref ?? '–'}</span>`],
    [t('email'), tx.email ?? '–'],
    [t('created'), when(tx.created_at)],
    [t('expires'), when(tx.expires_at)],
    [t('paid'), when(tx.paid_at)],
  ];
  if (tx.cancelled_at !== null) fields.push([t('cancelledAt'), when(tx.cancelled_at)]);
  if (p) fields.push([t('payment'), html`<span class="mono">${p.id}</span><br>${t('paymentVia', { source: p.source, reference: p.reference ?? '–' })}`]);
  if (tx.acquirer_reference !== null) fields.push([t('acquirerReference'), html`<span class="mono">${tx.acquirer_reference}</span>`]);
  const checkout = transactionUrls(deps.config.publicBaseUrl, tx.id).checkout;
  fields.push([t('checkout'), html`<a href="${checkout}" rel="noopener" target="_blank">${checkout}</a>`]);

  const action = (name: string) => `/dashboard/transactions/${tx.id}/${name}`;
  const csrf = html`<input type="hidden" name="_csrf" value="${page.csrf}">`;
  const cancelForm =
    detail.status === 'pending'
      ? html`<form method="post" action="${action('cancel')}" data-confirm="${t('cancelConfirm')}">${csrf}
<p class="muted">${t('cancelHint')}</p><button type="submit" class="danger">${t('cancel')}</button></form>`
      : '';
  const confirmForm =
    detail.status !== 'paid'
      ? html`<form method="post" action="${action('confirm')}" data-confirm="${t('confirmConfirm')}">${csrf}
<h3>${t('confirm')}</h3><p class="muted">${t('confirmHint')}</p>
<label for="tx-reference">${t('reference')}</label>
<input id="tx-reference" name="reference" required maxlength="128" autocomplete="off" value="${form.reference}" aria-describedby="tx-reference-hint"${form.invalid ? html` aria-invalid="true"` : ''}>
<div id="tx-reference-hint" class="hint muted">${t('referenceHint')}</div>
<button type="submit">${t('confirm')}</button></form>`
      : '';
  const actions = cancelForm || confirmForm ? html`${cancelForm}${confirmForm}` : html`<p class="muted">${t('noActions')}</p>`;

  const body = html`<p class="crumbs"><a href="/dashboard/transactions">← ${t('back')}</a></p>
<div class="heading"><h1>${t('title')} <span class="mono title-id">${tx.id}</span></h1>${badge}</div>
${notice ? html`<p class="notice ${notice.kind}" role="${notice.kind === 'error' ? 'alert' : 'status'}">${notice.text}</p>` : ''}
<div class="detail">
<section class="card"><h2>${t('details')}</h2><dl class="fields">${fields.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl></section>
<section class="card"><h2>${t('actions')}</h2>${actions}</section>
</div>
<section class="card"><h2>${t('timeline')}</h2>
<ol class="timeline">${detail.timeline.map((entry) => timelineItem(entry, { t, page, total: tx.total_amount, resendUrl: action('resend'), csrf }))}</ol>
</section>`;
  return page.send(`${t('title')} ${tx.id}`, 'transactions', body, status);
}

interface ItemContext {
  t: T;
  page: ConsolePage;
  total: number;
  resendUrl: string;
  csrf: SafeHtml;
}

function timelineItem(entry: TimelineEntry, ctx: ItemContext): SafeHtml {
  const { t, page, resendUrl, csrf } = ctx;
  const time = html`<time datetime="${isoTime(entry.at)}">${wibTime(entry.at, page.lang)}</time>`;
  const item = (kind: string, title: SafeHtml | string, more: SafeHtml | string = '') => html`<li class="tl-${kind}">${time}<div class="what">${title}</div>${more}</li>`;
  switch (entry.kind) {
    case 'created':
      return item('created', t('tlCreated', { total: rupiah(ctx.total) }));
    case 'paid':
      return item('paid', entry.late ? t('tlPaidLate') : t('tlPaid'));
    case 'cancelled':
      return item('cancelled', t('tlCancelled'));
    case 'expired':
      return item('expired', t('tlExpired'));
    case 'audit': {
      const action = entry.entry.action;
      const known = action === 'transaction.cancel' || action === 'payment.confirm' || action === 'webhook.resend';
      return item('audit', t('tlAudit', { action: known ? t(action) : action, actor: entry.entry.actor }));
    }
    case 'payment': {
      const pay = entry.payment;
      const title = pay.source === 'manual' ? t('tlManual', { amount: rupiah(pay.amount) }) : t('tlPayment', { source: pay.source, amount: rupiah(pay.amount) });
      const state = pay.status === 'matched' ? t('tlPaymentMatched') : t('tlPaymentUnmatched', { reason: pay.reason ?? '?' });
      const facts = [pay.reference ? t('tlPaymentRef', { reference: pay.reference }) : null, pay.issuer, pay.payer_name, state].filter((x): x is string => !!x);
      return item('payment', title, html`<div class="muted"><span class="mono">${pay.id}</span> · ${facts.join(' · ')}</div>`);
    }
    case 'email': {
      const e = entry.email;
      const state = { pending: t('emailPending'), sent: t('emailSent'), skipped: t('emailSkipped'), failed: t('emailFailed') }[e.status];
      const badgeClass = e.status === 'sent' ? 'ok' : e.status;
      const more = [e.attempts > 0 ? t('emailAttempts', { count: e.attempts }) : null, e.last_error].filter((x): x is string => !!x);
      return item(
        'email',
        html`${t('tlEmail', { kind: t(e.kind), recipient: e.recipient })} <span class="badge ${badgeClass}">${state}</span>`,
        more.length > 0 ? html`<div class="muted">${more.join(' · ')}</div>` : '',
      );
    }
    case 'emailSent':
      return item('email', t('tlEmailSent', { kind: t(entry.email.kind) }));
    case 'event': {
      const deliveries =
        entry.deliveries.length === 0
          ? html`<p class="muted">${t('noEndpoints')}</p>`
          : html`${entry.deliveries.map((d) => deliveryBlock(d, t, page))}
<form method="post" action="${resendUrl}" class="resend">${csrf}<input type="hidden" name="event" value="${entry.event.id}"><button type="submit" class="secondary">${t('resend')}</button></form>`;
      return item('event', html`${t('tlEvent', { type: entry.event.type })} <span class="mono muted">${entry.event.id}</span>`, deliveries);
    }
  }
}

function deliveryBlock(d: DeliveryHistory, t: T, page: ConsolePage): SafeHtml {
  const state = { pending: t('deliveryPending'), succeeded: t('deliverySucceeded'), failed: t('deliveryFailed') }[d.status];
  const attempts =
    d.attemptList.length === 0
      ? html`<p class="muted">${t('noAttempts')}</p>`
      : html`<div class="table-wrap"><table class="attempts"><caption class="muted">${t('attempts')}</caption>
<thead><tr><th>${t('attemptTime')}</th><th class="num">${t('attemptCode')}</th><th class="num">${t('attemptDuration')}</th><th>${t('attemptError')}</th></tr></thead>
<tbody>${d.attemptList.map(
          (a) => html`<tr><td>${wibTime(a.attempted_at, page.lang)}</td><td class="num"><span class="badge ${a.succeeded === 1 ? 'ok' : 'failed'}">${a.status_code ?? '–'}</span></td>
<td class="num">${t('ms', { n: a.duration_ms })}</td><td class="mono">${a.error ?? ''}</td></tr>`,
        )}</tbody></table></div>`;
  return html`<div class="delivery"><div>${t('deliveryTo')} <span class="mono">${d.url ?? t('removedEndpoint')}</span> <span class="badge ${d.status}">${state}</span></div>${attempts}</div>`;
}
