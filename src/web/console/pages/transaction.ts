// One transaction in the console: its fields, its timeline (e-mails, payments, status changes, webhook
// deliveries with every attempt) and what may be done to it (cancel, confirm a payment by hand, refund,
// resend a webhook event). Every action is a POST that answers with a 303 back here and a notice.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { mayOpen } from '../../../domain/viewer.js';
import {
  parseRefundAmount,
  parseRefundReason,
  parseRefundReference,
  refundableRemainder,
  transactionRefundStatus,
} from '../../../domain/refund.js';
import { AppError } from '../../../domain/errors.js';
import { html, type SafeHtml } from '../../../domain/html.js';
import { isoTime } from '../../../domain/iso-time.js';
import { readsAsLinkOrAddress } from '../../../domain/link-text.js';
import { formatRupiah } from '../../../domain/money.js';
import { transactionUrls } from '../../../domain/transaction.js';
import { formatTime } from '../../../presentation/format.js';
import { translator, type Lang, type Translate } from '../../../presentation/messages.js';
import { errorText, modeText, reasonText, type ShownError } from '../../../presentation/shared-texts.js';
import type { Deps } from '../../../services/deps.js';
import { acceptReceived } from '../../../services/payments/accept-received.js';
import { confirmPayment } from '../../../services/payments/confirm-payment.js';
import { isDoublePayment } from '../../../domain/payment.js';
import { cancelTransaction } from '../../../services/transactions/cancel-transaction.js';
import { refundTransaction } from '../../../services/refunds/refund-transaction.js';
import { refundsOf } from '../../../services/refunds/refunds-of.js';
import type { RefundsTable, TransactionsTable } from '../../../storage/schema.js';
import {
  getTransactionTimeline,
  type DeliveryHistory,
  type TimelineEntry,
  type TransactionDetail,
} from '../../../services/transactions/get-transaction-timeline.js';
import { getVisibleTransaction } from '../../../services/transactions/get-visible-transaction.js';
import { hasEnabledLiveSource } from '../../../services/sources/live-source.js';
import { sourceNamesOf } from '../../../services/sources/source-names.js';
import { noLiveSourceNotice } from '../no-live-source.js';
import { resendTransactionEvent } from '../../../services/webhooks/resend-transaction-event.js';
import { makeReceiptLink } from '../../../services/receipts/make-receipt-link.js';
import { receiptLinkOf } from '../../../services/receipts/receipt-link-of.js';
import { Form, pageSchema, Params, Segment, Text } from '../../forms.js';
import { consolePage, type ConsolePage } from '../context.js';
import { redirectWithNotice, takeNotice, type Notice } from '../notice.js';
import { statusBadge } from './transaction-status.js';
import { words } from './transaction.words.js';

type Key = keyof typeof words.en;
type T = Translate<Key>;

/** Action errors that become a notice on the page (anything else is an error page). */
const NOTICE_ERRORS: readonly ShownError[] = [
  'transaction_already_paid',
  'transaction_expired',
  'acquirer_unavailable',
  'acquirer_error',
  'reference_already_recorded',
  'transaction_not_kept_open',
];
const DONE = ['cancelled', 'confirmed', 'accepted', 'unmatched', 'resent', 'nothing', 'receipt'] as const;

/** What an action ended in and, for some, a reason or a count: the notice the page then shows. */
type Outcome = { done: (typeof DONE)[number]; reason?: string; count?: number };
const trxidParams = Params({ trxid: Segment() });

export function registerTransactionPage(scope: FastifyInstance, deps: Deps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/transactions/:trxid', { schema: pageSchema({ params: trxidParams }) }, async (request, reply) => {
    const page = consolePage(request, reply);
    const detail = await getTransactionTimeline(deps, page.viewer, request.params.trxid);
    const receipt = await receiptLinkOf(deps, page.viewer, detail.transaction.id);
    return sendDetail(deps, page, detail, takeNotice(request, reply), undefined, 200, receipt);
  });

  // The receipt's public link (issue 27, section 5): made once, then shown on the page.
  app.post(
    '/transactions/:trxid/receipt',
    { schema: pageSchema({ params: trxidParams, body: Form({}) }) },
    async (request, reply) => {
      const viewer = request.viewer!;
      const tx = await getVisibleTransaction(deps, viewer, request.params.trxid);
      return act(reply, request.consoleLang, tx.id, async () => {
        await makeReceiptLink(deps, viewer, tx.id);
        return { done: 'receipt' };
      });
    },
  );

  app.post(
    '/transactions/:trxid/cancel',
    { schema: pageSchema({ params: trxidParams, body: Form({}) }) },
    async (request, reply) => {
      const viewer = request.viewer!;
      const tx = await getVisibleTransaction(deps, viewer, request.params.trxid);
      return act(reply, request.consoleLang, tx.id, async () => {
        await cancelTransaction(deps, {
          trxid: tx.id,
          owner: { merchantId: tx.merchant_id, mode: tx.mode },
          actor: viewer.actor,
        });
        return { done: 'cancelled' };
      });
    },
  );

  // A transaction kept open after a part payment, closed with what it received (issue 37, section 2).
  app.post(
    '/transactions/:trxid/accept',
    { schema: pageSchema({ params: trxidParams, body: Form({}) }) },
    async (request, reply) => {
      const viewer = request.viewer!;
      const tx = await getVisibleTransaction(deps, viewer, request.params.trxid);
      return act(reply, request.consoleLang, tx.id, async () => {
        await acceptReceived(deps, { trxid: tx.id, actor: viewer.actor, merchants: [tx.merchant_id] });
        return { done: 'accepted' };
      });
    },
  );

  app.post(
    '/transactions/:trxid/confirm',
    { schema: pageSchema({ params: trxidParams, body: Form({ reference: Text() }) }) },
    async (request, reply) => {
      const viewer = request.viewer!;
      const tx = await getVisibleTransaction(deps, viewer, request.params.trxid);
      const reference = request.body.reference ?? '';
      try {
        return await act(reply, request.consoleLang, tx.id, async () => {
          const result = await confirmPayment(deps, {
            trxid: tx.id,
            reference,
            amount: null,
            actor: viewer.actor,
          });
          return result.outcome === 'matched'
            ? { done: 'confirmed' }
            : { done: 'unmatched', reason: result.reason ?? 'no_matching_transaction' };
        });
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'invalid_parameter' || err.param !== 'reference') throw err;
        // A bad field: the page again, with what was typed and what is wrong with it.
        const page = consolePage(request, reply);
        const t = translator(words, page.lang);
        const detail = await getTransactionTimeline(deps, viewer, tx.id);
        return sendDetail(
          deps,
          page,
          detail,
          { kind: 'error', text: t('badReference') },
          { reference: reference.slice(0, 200), invalid: true },
          400,
        );
      }
    },
  );

  // A refund (issue 28): a cashier never gets here (domain/viewer.ts, mayOpen: a 404 like any action).
  app.post(
    '/transactions/:trxid/refund',
    { schema: pageSchema({ params: trxidParams, body: Form({ amount: Text(), reason: Text(), reference: Text() }) }) },
    async (request, reply) => {
      const viewer = request.viewer!;
      const tx = await getVisibleTransaction(deps, viewer, request.params.trxid);
      const t = translator(words, request.consoleLang);
      const back = `/dashboard/transactions/${tx.id}`;
      try {
        const input = {
          amount: parseRefundAmount(request.body.amount?.trim()),
          reason: parseRefundReason(request.body.reason),
          reference: parseRefundReference(request.body.reference),
        };
        const result = await refundTransaction(deps, {
          trxid: tx.id,
          owner: { merchantId: tx.merchant_id, mode: tx.mode },
          ...input,
          idempotency: null,
          actor: viewer.actor,
        });
        const r = result.transaction.refund;
        const key = r.recorded ? 'done_recorded' : r.status === 'succeeded' ? 'done_refunded' : 'done_refund_pending';
        return redirectWithNotice(reply, back, { kind: 'success', text: t(key, { amount: formatRupiah(r.amount) }) });
      } catch (err) {
        const known = [
          'transaction_not_paid',
          'refund_exceeds_remaining',
          'refund_limit_reached',
          'refund_refused',
          'acquirer_unavailable',
        ] as const;
        if (!(err instanceof AppError)) throw err;
        const code = known.find((c) => c === err.code);
        if (code !== undefined)
          return redirectWithNotice(reply, back, { kind: 'error', text: t(`refundError_${code}`) });
        if (err.code === 'invalid_parameter') {
          // A link or an address in what the payer would read is said as such; anything else, the fields' rules.
          const field =
            err.param === 'reason'
              ? request.body.reason
              : err.param === 'reference'
                ? request.body.reference
                : undefined;
          const link = field !== undefined && readsAsLinkOrAddress(field);
          return redirectWithNotice(reply, back, {
            kind: 'error',
            text: t(link ? 'refundError_link' : 'refundError_invalid'),
          });
        }
        throw err;
      }
    },
  );

  app.post(
    '/transactions/:trxid/resend',
    { schema: pageSchema({ params: trxidParams, body: Form({ event: Text() }) }) },
    async (request, reply) => {
      const viewer = request.viewer!;
      const trxid = request.params.trxid;
      const eventId = request.body.event ?? '';
      // Another merchant's transaction, or an event not of this transaction, is a 404 page (from the service).
      return act(reply, request.consoleLang, trxid, async () => {
        const result = await resendTransactionEvent(deps, viewer, { trxid, eventId });
        return result.requeued === 0 ? { done: 'nothing' } : { done: 'resent', count: result.requeued };
      });
    },
  );
}

/**
 * Runs an action and answers with a 303 back to the transaction's page, its outcome in a notice. The
 * action's expected refusals become an error notice; anything else is the console's error page.
 */
async function act(
  reply: FastifyReply,
  lang: Lang,
  trxid: string,
  action: () => Promise<Outcome>,
): Promise<FastifyReply> {
  const back = `/dashboard/transactions/${trxid}`;
  try {
    return redirectWithNotice(reply, back, noticeOf(lang, await action()));
  } catch (err) {
    const shown = err instanceof AppError ? NOTICE_ERRORS.find((code) => code === err.code) : undefined;
    if (shown === undefined) throw err;
    return redirectWithNotice(reply, back, { kind: 'error', text: errorText(shown, lang) });
  }
}

/** What the page says of an action's outcome. */
function noticeOf(lang: Lang, outcome: Outcome): Notice {
  const t = translator(words, lang);
  const { done, reason, count = 0 } = outcome;
  const why = reason === undefined ? '?' : reasonText(reason, lang);
  const key = done === 'resent' && count === 1 ? 'done_resent_one' : (`done_${done}` as const);
  return { kind: done === 'unmatched' ? 'error' : 'success', text: t(key, { reason: why, count: String(count) }) };
}

/** What the page shows of a transaction's refunds, and whether its refunds are records (static QRIS). */
interface RefundFacts {
  refunds: RefundsTable[];
  recorded: boolean;
}

async function refundFacts(deps: Deps, tx: TransactionsTable): Promise<RefundFacts> {
  const [refunds, issuer] = await Promise.all([refundsOf(deps, tx), deps.issuers.forTransaction(deps, tx)]);
  return { refunds, recorded: issuer.refunds === 'record' };
}

async function sendDetail(
  deps: Deps,
  page: ConsolePage,
  detail: TransactionDetail,
  notice: Notice | null,
  form: { reference: string; invalid: boolean } = { reference: '', invalid: false },
  status = 200,
  receiptToken: string | null = null,
): Promise<FastifyReply> {
  const t = translator(words, page.lang);
  const tx = detail.transaction;
  const refundInfo = await refundFacts(deps, tx);
  // A live transaction still waiting, of a merchant no source can mark paid: it will only expire.
  const unsourced =
    detail.status === 'pending' && tx.mode === 'live' && !(await hasEnabledLiveSource(deps, tx.merchant_id))
      ? noLiveSourceNotice(page.viewer, page.lang, { id: tx.merchant_id, name: detail.merchantName ?? tx.merchant_id })
      : '';
  const when = (ms: number | null) => (ms === null ? '–' : formatTime(ms, page.lang));
  const badge = statusBadge(detail.status, tx.paid_late === 1, page.lang, transactionRefundStatus(tx));
  const p = detail.payment;
  const fields: Array<[string, SafeHtml | string]> = [
    [t('status'), badge],
    [t('merchant'), html`${detail.merchantName ?? ''} <span class="mono muted">${tx.merchant_id}</span>`],
    [t('mode'), modeText(tx.mode, page.lang)],
    [t('amount'), formatRupiah(tx.amount)],
    [t('uniqueCode'), String(tx.unique_code)],
    [t('total'), html`<strong>${formatRupiah(tx.total_amount)}</strong>`],
    [t('ref'), html`<span class="mono">${tx.ref ?? '–'}</span>`],
    [t('email'), tx.email ?? '–'],
    [t('created'), when(tx.created_at)],
    ...(detail.cashierEmail !== null || tx.description
      ? ([
          [
            t('cashier'),
            html`<a href="/dashboard/transactions?cashier=${tx.created_by_user_id ?? ''}">${detail.cashierEmail ?? tx.created_by_user_id ?? ''}</a>`,
          ],
          [t('note'), tx.description ?? '–'],
        ] as Array<[string, SafeHtml | string]>)
      : []),
    [t('expires'), when(tx.expires_at)],
    [t('paid'), when(tx.paid_at)],
  ];
  if (tx.cancelled_at !== null) fields.push([t('cancelledAt'), when(tx.cancelled_at)]);
  // What it received when that is not simply its total: a part kept open (the rest still due, its
  // payments in the timeline), or a difference a person accepted.
  const underpaid = tx.underpaid ?? 0;
  const overpaid = tx.overpaid ?? 0;
  if (underpaid > 0 || overpaid > 0) {
    fields.push([t('amountPaid'), formatRupiah(tx.amount_paid ?? 0)]);
    if (underpaid > 0) fields.push([t(tx.status === 'paid' ? 'underpaid' : 'stillDue'), formatRupiah(underpaid)]);
    if (overpaid > 0) fields.push([t('overpaid'), formatRupiah(overpaid)]);
  }
  if ((tx.refunded_amount ?? 0) > 0) fields.push([t('refunded'), formatRupiah(tx.refunded_amount ?? 0)]);
  if (p) {
    const via = (await sourceNamesOf(deps, [p.source])).get(p.source);
    fields.push([
      t('payment'),
      html`<span class="mono">${p.id}</span><br>${t('paymentVia', { source: via === undefined ? p.source : `${via} (${p.source})`, reference: p.reference ?? '–' })}`,
    ]);
  }
  if (tx.acquirer_reference !== null)
    fields.push([t('acquirerReference'), html`<span class="mono">${tx.acquirer_reference}</span>`]);
  const checkout = transactionUrls(deps.config.publicBaseUrl, tx.id).checkout;
  fields.push([t('checkout'), html`<a href="${checkout}" rel="noopener" target="_blank">${checkout}</a>`]);

  const action = (name: string) => `/dashboard/transactions/${tx.id}/${name}`;
  // Only what this viewer's routes take: the same rule (domain/viewer.ts, mayOpen) that answers a 404 to
  // an action the viewer may not do, so the page can never offer a button its route refuses.
  const may = (url: string) => mayOpen(page.viewer, url);
  const csrf = html`<input type="hidden" name="_csrf" value="${page.csrf}">`;
  const cancelForm =
    detail.status === 'pending' && may(action('cancel'))
      ? html`<form method="post" action="${action('cancel')}" data-confirm="${t('cancelConfirm')}">${csrf}
<p class="muted">${t('cancelHint')}</p><button type="submit" class="danger">${t('cancel')}</button></form>`
      : '';
  // A transaction kept open after a part payment is owed the rest: a confirmation records only that,
  // and it can instead be closed with what it received.
  const received = tx.status === 'paid' ? 0 : (tx.amount_paid ?? 0);
  const rest = formatRupiah(tx.total_amount - received);
  const acceptForm =
    (detail.status === 'pending' || detail.status === 'expired') && received > 0 && may(action('accept'))
      ? html`<form method="post" action="${action('accept')}" data-confirm="${t('acceptConfirm', { received: formatRupiah(received), rest })}">${csrf}
<h3>${t('accept')}</h3><p class="muted">${t('acceptHint', { received: formatRupiah(received), rest })}</p>
<button type="submit">${t('accept')}</button></form>`
      : '';
  const confirmForm =
    detail.status !== 'paid' && may(action('confirm'))
      ? html`<form method="post" action="${action('confirm')}" data-confirm="${received > 0 ? t('confirmRestConfirm', { rest }) : t('confirmConfirm')}">${csrf}
<h3>${t('confirm')}</h3><p class="muted">${received > 0 ? t('confirmRestHint', { rest }) : t('confirmHint')}</p>
<label for="tx-reference">${t('reference')}</label>
<input id="tx-reference" name="reference" required maxlength="128" autocomplete="off" value="${form.reference}" aria-describedby="tx-reference-hint"${form.invalid ? html` aria-invalid="true"` : ''}>
<div id="tx-reference-hint" class="hint muted">${t('referenceHint')}</div>
<button type="submit">${t('confirm')}</button></form>`
      : '';
  // A viewer who may neither cancel nor confirm (a cashier) gets no actions card at all: its "nothing to do
  // here" text speaks of refunds and resends, which are not that viewer's either.
  const actionsCard =
    cancelForm || acceptForm || confirmForm
      ? html`<section class="card"><h2>${t('actions')}</h2>${cancelForm}${acceptForm}${confirmForm}</section>`
      : may(action('cancel')) || may(action('confirm'))
        ? html`<section class="card"><h2>${t('actions')}</h2><p class="muted">${t('noActions')}</p></section>`
        : '';
  const receiptUrl = receiptToken === null ? null : `${deps.config.publicBaseUrl}/receipt/${receiptToken}`;
  const receipt =
    detail.status !== 'paid' || (receiptUrl === null && !may(action('receipt')))
      ? ''
      : receiptUrl === null
        ? html`<section class="card"><h2>${t('receiptTitle')}</h2><p class="muted">${t('receiptHint')}</p>
<form method="post" action="${action('receipt')}">${csrf}<button type="submit">${t('receiptMake')}</button></form></section>`
        : html`<section class="card"><h2>${t('receiptTitle')}</h2><p class="muted">${t('receiptShare')}</p>
<p><a id="receipt-url" class="mono" href="${receiptUrl}" rel="noopener" target="_blank">${receiptUrl}</a></p>
<p><a href="${receiptUrl}?width=58&amp;lang=${page.lang}" rel="noopener" target="_blank">${t('receiptPrint58')}</a> · <a href="${receiptUrl}?width=80&amp;lang=${page.lang}" rel="noopener" target="_blank">${t('receiptPrint80')}</a>
<button type="button" class="secondary" data-copy="receipt-url" data-copied="${t('copied')}">${t('copy')}</button></p></section>`;

  const refunds = refundSection({ t, page, tx, facts: refundInfo, status: detail.status, url: action('refund'), csrf });

  const body = html`<p class="crumbs"><a href="/dashboard/transactions">← ${t('back')}</a></p>
<div class="heading"><h1>${t('title')} <span class="mono title-id">${tx.id}</span></h1>${badge}</div>
${notice ? html`<p class="notice ${notice.kind}" role="${notice.kind === 'error' ? 'alert' : 'status'}">${notice.text}</p>` : ''}
${unsourced}
<div class="${actionsCard ? 'detail' : 'detail-alone'}">
<section class="card"><h2>${t('details')}</h2><dl class="fields">${fields.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl></section>
${actionsCard}
</div>
${refunds}
${receipt}
<section class="card"><h2>${t('timeline')}</h2>
<ol class="timeline">${detail.timeline.map((entry) => timelineItem(entry, { t, page, total: tx.total_amount, resendUrl: action('resend'), csrf }))}</ol>
</section>`;
  return page.send(`${t('title')} ${tx.id}`, 'transactions', body, status);
}

/**
 * The refund card of a paid transaction: its refunds with their status, and the form for another (never
 * for a cashier). A code made from the merchant's static QRIS says plainly the gateway moves no money.
 */
function refundSection(ctx: {
  t: T;
  page: ConsolePage;
  tx: TransactionsTable;
  facts: RefundFacts;
  status: string;
  url: string;
  csrf: SafeHtml;
}): SafeHtml | '' {
  const { t, page, tx, facts, csrf } = ctx;
  if (ctx.status !== 'paid' && facts.refunds.length === 0) return '';
  const list =
    facts.refunds.length === 0
      ? ''
      : html`<h3>${t('refundsList')}</h3><ul class="refunds">${facts.refunds.map(
          (r) =>
            html`<li id="refund-${r.id}"><strong>${formatRupiah(r.amount)}</strong> <span class="badge ${r.status === 'succeeded' ? 'ok' : r.status}">${t(`refundStatus_${r.status}`)}</span>${
              r.recorded === 1 ? html` <span class="muted">(${t('refundRecordedTag')})</span>` : ''
            }<br>${r.reason}${r.reference !== null ? html` · <span class="mono">${r.reference}</span>` : ''}<br><span class="muted"><time datetime="${isoTime(r.created_at)}">${formatTime(r.created_at, page.lang)}</time> · ${t('refundBy', { who: r.requested_by })} · <span class="mono">${r.id}</span></span></li>`,
        )}</ul>`;
  const remaining = refundableRemainder(tx);
  let form: SafeHtml | string = '';
  if (ctx.status === 'paid' && mayOpen(page.viewer, ctx.url)) {
    form =
      remaining === 0
        ? html`<p class="muted">${t('refundNothingLeft')}</p>`
        : html`<form method="post" action="${ctx.url}" data-confirm="${t('refundConfirm', { amount: formatRupiah(remaining) })}" data-confirm-amount="refund-amount" data-confirm-template="${t('refundConfirm', { amount: '{amount}' })}">${csrf}
${facts.recorded ? html`<p><strong>${t('refundRecordHint')}</strong></p><p class="muted">${t('refundRecordMore')}</p>` : html`<p class="muted">${t('refundAcquirerHint')}</p>`}
<label for="refund-amount">${t('refundAmount')}</label>
<input id="refund-amount" name="amount" inputmode="numeric" pattern="[0-9]*" required value="${String(remaining)}" aria-describedby="refund-amount-hint" autocomplete="off">
<div id="refund-amount-hint" class="hint muted">${t('refundAmountHint', { remaining: formatRupiah(remaining) })}</div>
<label for="refund-reason">${t('refundReason')}</label>
<input id="refund-reason" name="reason" required maxlength="256" autocomplete="off">
${
  facts.recorded
    ? html`<label for="refund-reference">${t('refundReference')}</label>
<input id="refund-reference" name="reference" maxlength="128" autocomplete="off">`
    : ''
}
<button type="submit" class="danger">${facts.recorded ? t('refundRecord') : t('refundSubmit')}</button></form>`;
  }
  // A viewer who may not refund (a cashier) and no refund yet: no card with a title and nothing under it.
  if (list === '' && form === '') return '';
  return html`<section class="card" id="refunds"><h2>${t('refundTitle')}</h2>${list}${form}</section>`;
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
  const time = html`<time datetime="${isoTime(entry.at)}">${formatTime(entry.at, page.lang)}</time>`;
  const item = (kind: string, title: SafeHtml | string, more: SafeHtml | string = '') =>
    html`<li class="tl-${kind}">${time}<div class="what">${title}</div>${more}</li>`;
  switch (entry.kind) {
    case 'created':
      return item('created', t('tlCreated', { total: formatRupiah(ctx.total) }));
    case 'paid':
      return item('paid', entry.late ? t('tlPaidLate') : t('tlPaid'));
    case 'cancelled':
      return item('cancelled', t('tlCancelled'));
    case 'expired':
      return item('expired', t('tlExpired'));
    case 'audit': {
      const action = entry.entry.action;
      const known =
        action === 'transaction.cancel' ||
        action === 'transaction.refund' ||
        action === 'payment.confirm' ||
        action === 'transaction.accept_received' ||
        action === 'webhook.resend' ||
        action === 'receipt.link';
      return item('audit', t('tlAudit', { action: known ? t(action) : action, actor: entry.entry.actor }));
    }
    case 'payment': {
      const pay = entry.payment;
      const title =
        pay.source === 'manual'
          ? t('tlManual', { amount: formatRupiah(pay.amount) })
          : t('tlPayment', { source: pay.source, amount: formatRupiah(pay.amount) });
      const state =
        pay.status === 'matched'
          ? t('tlPaymentMatched')
          : t('tlPaymentUnmatched', { reason: pay.reason === null ? '?' : reasonText(pay.reason, page.lang) });
      const facts = [
        pay.reference ? t('tlPaymentRef', { reference: pay.reference }) : null,
        pay.issuer,
        pay.payer_name,
        state,
      ].filter((x): x is string => !!x);
      // A double payment (paid again after this transaction was paid) is refunded from the payments page.
      const double = isDoublePayment(pay)
        ? html` · <a href="/dashboard/payments?status=double#pay-${pay.id}">${t('tlDoublePayment')}</a>`
        : '';
      return item(
        'payment',
        title,
        html`<div class="muted"><span class="mono">${pay.id}</span> · ${facts.join(' · ')}${double}</div>`,
      );
    }
    case 'email': {
      const e = entry.email;
      const state = {
        pending: t('emailPending'),
        sent: t('emailSent'),
        skipped: t('emailSkipped'),
        failed: t('emailFailed'),
      }[e.status];
      const badgeClass = e.status === 'sent' ? 'ok' : e.status;
      const more = [e.attempts > 0 ? t('emailAttempts', { count: e.attempts }) : null, e.last_error].filter(
        (x): x is string => !!x,
      );
      return item(
        'email',
        html`${t('tlEmail', { kind: t(mailKindWord(e.kind)), recipient: e.recipient })} <span class="badge ${badgeClass}">${state}</span>`,
        more.length > 0 ? html`<div class="muted">${more.join(' · ')}</div>` : '',
      );
    }
    case 'emailSent':
      return item('email', t('tlEmailSent', { kind: t(mailKindWord(entry.email.kind)) }));
    case 'event': {
      const deliveries =
        entry.deliveries.length === 0
          ? html`<p class="muted">${t('noEndpoints')}</p>`
          : html`${entry.deliveries.map((d) => deliveryBlock(d, t, page))}
${
  mayOpen(page.viewer, resendUrl)
    ? html`<form method="post" action="${resendUrl}" class="resend">${csrf}<input type="hidden" name="event" value="${entry.event.id}"><button type="submit" class="secondary">${t('resend')}</button></form>`
    : ''
}`;
      return item(
        'event',
        html`${t('tlEvent', { type: entry.event.type })} <span class="mono muted">${entry.event.id}</span>`,
        deliveries,
      );
    }
  }
}

function deliveryBlock(d: DeliveryHistory, t: T, page: ConsolePage): SafeHtml {
  const state = { pending: t('deliveryPending'), succeeded: t('deliverySucceeded'), failed: t('deliveryFailed') }[
    d.status
  ];
  const attempts =
    d.attemptList.length === 0
      ? html`<p class="muted">${t('noAttempts')}</p>`
      : html`<div class="table-wrap"><table class="attempts"><caption class="muted">${t('attempts')}</caption>
<thead><tr><th>${t('attemptTime')}</th><th class="num">${t('attemptCode')}</th><th class="num">${t('attemptDuration')}</th><th>${t('attemptError')}</th></tr></thead>
<tbody>${d.attemptList.map(
          (
            a,
          ) => html`<tr><td data-label="${t('attemptTime')}">${formatTime(a.attempted_at, page.lang)}</td><td class="num" data-label="${t('attemptCode')}"><span class="badge ${a.succeeded === 1 ? 'ok' : 'failed'}">${a.status_code ?? '–'}</span></td>
<td class="num" data-label="${t('attemptDuration')}">${t('ms', { n: a.duration_ms })}</td><td class="mono" data-label="${t('attemptError')}">${a.error ?? ''}</td></tr>`,
        )}</tbody></table></div>`;
  return html`<div class="delivery"><div>${t('deliveryTo')} <span class="mono">${d.url ?? t('removedEndpoint')}</span> <span class="badge ${d.status}">${state}</span></div>${attempts}</div>`;
}

/** The word of an e-mail's kind: a refund's notice (`refund:<id>`) is one kind to a reader. */
function mailKindWord(kind: string): 'invoice' | 'receipt' | 'refundMail' {
  return kind === 'invoice' || kind === 'receipt' ? kind : 'refundMail';
}
