// /dashboard/payments: reported payments, newest first, and for every unmatched one the transactions it
// could belong to with a form that assigns it (services/payments/assign-payment.ts, audited).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../../domain/errors.js';
import { html } from '../../../domain/html.js';
import { formatRupiah } from '../../../domain/money.js';
import type { TransactionStatus, TransactionsTable } from '../../../domain/records.js';
import { formatTime } from '../../../presentation/format.js';
import { type Lang, type Messages, type Translate, translator } from '../../../presentation/messages.js';
import { errorText, modeText, paidLateText, reasonText, statusText } from '../../../presentation/shared-texts.js';
import type { Deps } from '../../../services/deps.js';
import { sourceNamesOf } from '../../../services/sources/source-names.js';
import { sourceLabel } from '../source-label.js';
import { listVisibleMerchants } from '../../../services/merchants/list-visible-merchants.js';
import { assignDifference } from '../../../services/payments/assign-difference.js';
import { assignPayment } from '../../../services/payments/assign-payment.js';
import { refundDoublePayment } from '../../../services/refunds/refund-double-payment.js';
import { isDoublePayment } from '../../../domain/payment.js';
import { reviewPayments } from '../../../services/payments/review-payments.js';
import { merchantScope } from '../../../domain/viewer.js';
import type { PaymentListFilter, PaymentListRow } from '../../../storage/queries/payment-review.js';
import type { Mode } from '../../../storage/schema.js';
import { Form, pageSchema, Params, Query, Segment, Text } from '../../forms.js';
import { consolePage, safeNext } from '../context.js';
import { redirectWithNotice, renderNotice, takeNotice } from '../notice.js';
import { words } from './payments.words.js';

// The list's filters: a status, or the double payments (unmatched because their transaction was paid already).
const STATUSES: readonly PaymentListFilter[] = ['unmatched', 'matched', 'double'];
const TRXID = /^trx_[0-9A-Za-z]{1,80}$/;
type Word = typeof words extends Messages<infer K> ? K : never;
const MODES: readonly Mode[] = ['live', 'test'];

export async function paymentRoutes(scope: FastifyInstance, deps: Deps): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/payments',
    {
      schema: pageSchema({
        querystring: Query({ status: Text(), mode: Text(), before: Text(), confirm: Text(), trxid: Text() }),
      }),
    },
    async (request, reply) => {
      const page = consolePage(request, reply);
      const t = translator(words, page.lang);
      const notice = takeNotice(request, reply);
      const askedStatus = request.query.status;
      const askedMode = request.query.mode;
      // Always one status: each is read newest first along an index (payments_status_received); both at
      // once would scan and sort the whole table. Unmatched, the ones to review, is the default.
      const status = STATUSES.find((s) => s === askedStatus) ?? 'unmatched';
      const mode = MODES.find((m) => m === askedMode) ?? null;
      const cursor = request.query.before ?? null;
      const [review, merchants] = await Promise.all([
        reviewPayments(deps, page.viewer, { status, mode, cursor }),
        listVisibleMerchants(deps, page.viewer),
      ]);
      const names = new Map(merchants.map((m) => [m.id, m.name]));
      const sourceNames = await sourceNamesOf(
        deps,
        review.payments.map((p) => p.source),
      );
      const when = (ms: number) => formatTime(ms, page.lang);
      const filterQuery = (extra: Record<string, string>) => {
        return `/dashboard/payments?${new URLSearchParams({ status, ...(mode ? { mode } : {}), ...extra }).toString()}`;
      };
      const txState = (p: PaymentListRow) =>
        p.transaction_id === null
          ? '–'
          : html`<a class="mono" href="/dashboard/transactions/${p.transaction_id}">${p.transaction_id}</a> ${
              p.transaction_status === null
                ? ''
                : html`<span class="badge ${p.transaction_status}">${statusWord(p.transaction_status, p.transaction_paid_late === 1, page.lang)}</span>`
            }`;
      // The transaction the matcher refused this payment for (another total, already paid, made after it),
      // on a line of its own under the link or the reason.
      const compared = (p: PaymentListRow) =>
        p.compared_transaction_id === null
          ? ''
          : html`<div class="compared">${t('comparedWith')} <a class="mono" href="/dashboard/transactions/${p.compared_transaction_id}">${p.compared_transaction_id}</a></div>`;
      // Payments still to review: unmatched and not refunded (a refunded double payment pays nothing).
      const unmatched = review.payments.filter((p) => p.status === 'unmatched' && p.refund_id === null);
      const filterText = (s: PaymentListFilter) => (s === 'double' ? t('doubleFilter') : t(s));
      const statusCell = (p: PaymentListRow) =>
        isDoublePayment(p)
          ? html`<span class="badge unmatched double">${t('doubleBadge')}</span>${p.refund_id === null ? '' : html` <span class="badge refunded">${t('refunded')}</span>`}`
          : html`<span class="badge ${p.status}">${t(p.status)}</span>`;
      const unmatchedCell = (p: PaymentListRow) => {
        if (p.refund_id !== null) return compared(p);
        return html`<a href="#pay-${p.id}">${isDoublePayment(p) ? t('refundAction') : t('review')}</a>${compared(p)}`;
      };
      // An assign refused for a differing amount comes back here naming the payment and the transaction
      // (?confirm=pay_…&trxid=trx_…): that payment's form then shows the difference and asks to accept it.
      const confirming = unmatched.find((p) => p.id === request.query.confirm);
      const confirmTrxid = request.query.trxid ?? '';
      const difference =
        confirming && TRXID.test(confirmTrxid) ? await assignDifference(deps, confirming, confirmTrxid) : null;
      const confirmation = (p: PaymentListRow) => {
        if (difference === null || p !== confirming) return '';
        const signed = difference.amountPaid - difference.total;
        const amount = formatRupiah(difference.underpaid + difference.overpaid);
        const params = {
          paid: formatRupiah(difference.paid),
          total: formatRupiah(difference.total),
          difference: amount,
          trxid: difference.trxid,
          before: formatRupiah(difference.before),
          sum: formatRupiah(difference.amountPaid),
        };
        const part = difference.before > 0;
        const says =
          difference.underpaid > 0
            ? part
              ? 'differsLessPart'
              : 'differsLess'
            : part
              ? 'differsMorePart'
              : 'differsMore';
        return html`<div class="difference">
<p id="assign-${p.id}-difference"><strong>${t(says, params)}</strong> ${t('differsHint')}</p>
<p><input type="checkbox" id="assign-${p.id}-accept" name="accept_difference" value="${String(signed)}" required aria-describedby="assign-${p.id}-difference"> <label for="assign-${p.id}-accept" class="inline">${t('acceptDifference', { difference: amount })}</label></p>
</div>`;
      };
      // Short of the total, the person may also keep the transaction open for a later payment of the rest:
      // a second submit button, which needs no acceptance (formnovalidate skips the checkbox). It comes
      // after Assign: Enter presses a form's first submit button, and Enter with the difference ticked
      // must accept it (and, unticked, is stopped by the checkbox it requires), never keep it open.
      const keepOpen = (p: PaymentListRow) => {
        if (difference === null || p !== confirming || difference.underpaid <= 0) return '';
        const amount = formatRupiah(difference.underpaid);
        return html`<p><button type="submit" name="keep_open" value="1" formnovalidate class="secondary" id="assign-${p.id}-keep">${t('keepOpen', { difference: amount })}</button> <span class="muted">${t('keepOpenHint')}</span></p>`;
      };

      // A double payment's refund: the merchant records that it paid the money back (the gateway moves
      // none); a reason is required, the transfer's reference is optional.
      const refundForm = (p: PaymentListRow) => {
        const params = { amount: formatRupiah(p.amount), trxid: p.compared_transaction_id ?? '' };
        return html`<h4>${t('refundTitle')}</h4>
<p class="muted" id="refund-${p.id}-hint">${t('refundHint', params)}</p>
<form method="post" action="/dashboard/payments/${p.id}/refund" class="refund">
<input type="hidden" name="_csrf" value="${page.csrf}">
<input type="hidden" name="back" value="${request.url}">
<label for="refund-${p.id}-reason">${t('refundReason')}</label>
<input id="refund-${p.id}-reason" name="reason" required maxlength="500" autocomplete="off" aria-describedby="refund-${p.id}-hint">
<label for="refund-${p.id}-reference">${t('refundReference')}</label>
<input id="refund-${p.id}-reference" name="reference" maxlength="200" autocomplete="off" spellcheck="false">
<button type="submit">${t('refundButton', params)}</button>
</form>`;
      };

      const body = html`<h1>${t('title')}</h1>
${renderNotice(notice)}
<form method="get" action="/dashboard/payments" class="filters card">
<div><label for="payments-status">${t('status')}</label>
<select id="payments-status" name="status" data-autosubmit>
${STATUSES.map((s) => html`<option value="${s}"${status === s ? html` selected` : ''}>${filterText(s)}</option>`)}
</select></div>
<div><label for="payments-mode">${t('mode')}</label>
<select id="payments-mode" name="mode" data-autosubmit>
<option value=""${mode === null ? html` selected` : ''}>${t('all')}</option>
${MODES.map((m) => html`<option value="${m}"${mode === m ? html` selected` : ''}>${modeText(m, page.lang)}</option>`)}
</select></div>
<div><button type="submit" class="secondary">${t('show')}</button></div>
</form>
${
  review.payments.length === 0
    ? html`<p class="card muted">${status === 'double' ? t('noneDouble') : t('none', { status: t(status) })}</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th>${t('received')}</th><th class="num">${t('amount')}</th><th>${t('status')}</th><th class="hide-narrow">${t('source')}</th><th class="hide-narrow">${t('payer')}</th><th class="hide-narrow">${t('merchant')}</th><th>${t('transaction')}</th></tr></thead>
<tbody>${review.payments.map(
        (
          p,
        ) => html`<tr><td data-label="${t('received')}">${when(p.received_at)}</td><td class="num" data-label="${t('amount')}">${formatRupiah(p.amount)}</td>
<td data-label="${t('status')}">${statusCell(p)}${p.mode === 'test' ? html` <span class="badge">${modeText('test', page.lang)}</span>` : ''}</td>
<td class="hide-narrow" data-label="${t('source')}">${sourceLabel(sourceNames, p.source)}</td><td class="hide-narrow" data-label="${t('payer')}">${[p.payer_name, p.issuer, p.reference].filter((x) => x !== null && x !== '').join(' · ')}</td>
<td class="hide-narrow" data-label="${t('merchant')}">${names.get(p.merchant_id) ?? p.merchant_id}</td>
<td data-label="${t('transaction')}">${p.status === 'unmatched' ? unmatchedCell(p) : txState(p)}</td></tr>`,
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
  const double = isDoublePayment(p);
  return html`<section class="card review" id="pay-${p.id}" aria-labelledby="pay-${p.id}-title">
<h3 id="pay-${p.id}-title">${t(double ? 'doublePayment' : 'unmatchedPayment', { amount: formatRupiah(p.amount) })}</h3>
<dl class="fields">
<dt>${t('amount')}</dt><dd>${formatRupiah(p.amount)}</dd>
<dt>${t('paid')}</dt><dd>${when(p.paid_at)}</dd>
<dt>${t('received')}</dt><dd>${when(p.received_at)}</dd>
<dt>${t('source')}</dt><dd>${sourceLabel(sourceNames, p.source)}</dd>
<dt>${t('reference')}</dt><dd>${p.reference ?? '–'}</dd>
<dt>${t('payer')}</dt><dd>${p.payer_name ?? '–'}</dd>
<dt>${t('issuer')}</dt><dd>${p.issuer ?? '–'}</dd>
<dt>${t('merchant')}</dt><dd>${names.get(p.merchant_id) ?? p.merchant_id} (${modeText(p.mode, page.lang)})</dd>
<dt>${t('reason')}</dt><dd>${p.reason === null ? '–' : reasonText(p.reason, page.lang)}${compared(p)}</dd>
</dl>
${double ? refundForm(p) : ''}
${
  // A double payment is offered an assign only when an unpaid transaction of its amount could take it.
  double && candidates.length === 0
    ? ''
    : html`<h4>${t('candidates')}</h4>
${
  candidates.length === 0
    ? html`<p class="muted">${t('noCandidates')}</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th>${t('transaction')}</th><th class="num">${t('amount')}</th><th>${t('created')}</th><th class="hide-narrow">${t('ends')}</th><th>${t('status')}</th></tr></thead>
<tbody>${candidates.map(
        (
          c,
        ) => html`<tr><td class="mono" data-label="${t('transaction')}">${c.id}</td><td class="num" data-label="${t('amount')}">${formatRupiah(c.total_amount)}${(c.amount_paid ?? 0) > 0 ? html`<div class="muted">${t('candidateDue', { rest: formatRupiah(c.total_amount - (c.amount_paid ?? 0)) })}</div>` : ''}</td><td data-label="${t('created')}">${when(c.created_at)}</td>
<td class="hide-narrow" data-label="${t('ends')}">${when(c.cancelled_at ?? c.expires_at)}</td><td data-label="${t('status')}"><span class="badge ${c.status}">${statusWord(c.status, false, page.lang)}</span></td></tr>`,
      )}</tbody></table></div>`
}
<form method="post" action="/dashboard/payments/${p.id}/assign" class="assign">
<input type="hidden" name="_csrf" value="${page.csrf}">
<input type="hidden" name="back" value="${request.url}">
<label for="assign-${p.id}">${t('transaction')}</label>
<input id="assign-${p.id}" name="trxid" required maxlength="100" autocomplete="off" spellcheck="false" list="candidates-${p.id}" aria-describedby="assign-${p.id}-hint" value="${difference !== null && p === confirming ? difference.trxid : candidates.length === 1 ? candidates[0]!.id : ''}">
<datalist id="candidates-${p.id}">${candidates.map((c) => html`<option value="${c.id}">${formatRupiah(c.total_amount)} · ${when(c.created_at)}</option>`)}</datalist>
<p class="muted" id="assign-${p.id}-hint">${t('assignHint')}</p>
${confirmation(p)}
<button type="submit">${t('assign')}</button>
${keepOpen(p)}
</form>`
}
</section>`;
})}`
}`;
      return page.send(t('title'), 'payments', body);
    },
  );

  const assignSchema = pageSchema({
    params: Params({ id: Segment() }),
    body: Form({ back: Text(), trxid: Text(), accept_difference: Text(), keep_open: Text() }),
  });
  app.post('/payments/:id/assign', { schema: assignSchema }, async (request, reply) => {
    const viewer = request.viewer!;
    const lang = request.consoleLang;
    const t = translator(words, lang);
    const back = safeNext(request.body.back, '/dashboard/payments?status=unmatched');
    const paymentId = request.params.id;
    // A malformed id names nothing: the same 404 as an unknown or another merchant's payment.
    if (!/^pay_[0-9A-Za-z]{1,80}$/.test(paymentId)) throw new AppError('payment_not_found', 'no such payment');
    const trxid = (request.body.trxid ?? '').trim();
    const refuse = (text: string) => redirectWithNotice(reply, back, { kind: 'error', text });
    if (trxid === '') return refuse(t('trxidRequired'));
    if (!TRXID.test(trxid)) return refuse(t('trxidMalformed', { trxid: trxid.slice(0, 100) }));
    // The confirmation's checkbox carries the difference it named (payment minus total), so an accept
    // holds only for that difference: not for another transaction typed in after confirming.
    const acceptedRaw = request.body.accept_difference;
    const accepted = acceptedRaw !== undefined && /^-?[0-9]{1,15}$/.test(acceptedRaw) ? Number(acceptedRaw) : null;
    try {
      const { payment, transaction } = await assignPayment(deps, {
        paymentId,
        trxid,
        actor: viewer.actor,
        merchants: merchantScope(viewer),
        ...(accepted === null ? {} : { acceptDifference: true, acceptedDifference: accepted }),
        keepOpen: request.body.keep_open === '1',
      });
      return redirectWithNotice(reply, back, { kind: 'success', text: assignedText(t, payment.id, transaction) });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      switch (err.code) {
        case 'transaction_not_found':
        case 'payment_already_matched':
        case 'transaction_already_paid':
          return refuse(errorText(err.code, lang, { trxid }));
        case 'payment_already_refunded':
          return refuse(t('alreadyRefunded'));
        case 'amount_differs': {
          // Back to the page, whose form for this payment now names the difference and asks to accept it.
          const url = new URL(back, 'http://console.invalid');
          url.searchParams.set('confirm', paymentId);
          url.searchParams.set('trxid', trxid);
          return redirectWithNotice(reply, `${url.pathname}${url.search}#pay-${paymentId}`, {
            kind: 'error',
            text: t('differsNotice', { payment: paymentId, trxid }),
          });
        }
        default:
          // payment_not_found (unknown or another merchant's) is the 404 page.
          throw err;
      }
    }
  });

  const refundSchema = pageSchema({
    params: Params({ id: Segment() }),
    body: Form({ back: Text(), reason: Text(), reference: Text() }),
  });
  app.post('/payments/:id/refund', { schema: refundSchema }, async (request, reply) => {
    const viewer = request.viewer!;
    const t = translator(words, request.consoleLang);
    const back = safeNext(request.body.back, '/dashboard/payments?status=double');
    const paymentId = request.params.id;
    // A malformed id names nothing: the same 404 as an unknown or another merchant's payment.
    if (!/^pay_[0-9A-Za-z]{1,80}$/.test(paymentId)) throw new AppError('payment_not_found', 'no such payment');
    const refuse = (text: string) => redirectWithNotice(reply, back, { kind: 'error', text });
    const reason = (request.body.reason ?? '').trim();
    if (reason === '') return refuse(t('refundReasonRequired'));
    if (reason.length > 500 || (request.body.reference ?? '').trim().length > 200) return refuse(t('refundTooLong'));
    try {
      const { payment, refund } = await refundDoublePayment(deps, {
        paymentId,
        reason,
        reference: request.body.reference ?? null,
        actor: viewer.actor,
        merchants: merchantScope(viewer),
      });
      return redirectWithNotice(reply, back, {
        kind: 'success',
        text: t('refundedNotice', {
          payment: payment.id,
          amount: formatRupiah(refund.amount),
          trxid: refund.transaction_id,
        }),
      });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      switch (err.code) {
        case 'payment_already_refunded':
          return refuse(t('alreadyRefunded'));
        case 'payment_not_double':
        case 'payment_already_matched':
          return refuse(t('notDouble'));
        case 'acquirer_unavailable':
          return refuse(t('refundAtAcquirer'));
        case 'invalid_parameter':
          // The lengths were checked above: a link or an address in the reason or the reference.
          return refuse(t('refundLink'));
        default:
          // payment_not_found (unknown or another merchant's) is the 404 page.
          throw err;
      }
    }
  });
}

/**
 * The notice of a done assign: kept open for the rest, or paid: late, and underpaid or overpaid by an
 * accepted difference, when so.
 */
function assignedText(t: Translate<Word>, paymentId: string, tx: TransactionsTable): string {
  const params = { payment: paymentId, trxid: tx.id };
  if (tx.status !== 'paid') {
    return t('assignedKeptOpen', {
      ...params,
      received: formatRupiah(tx.amount_paid ?? 0),
      total: formatRupiah(tx.total_amount),
      rest: formatRupiah(tx.underpaid ?? 0),
    });
  }
  if ((tx.underpaid ?? 0) > 0)
    return t('assignedUnderpaid', { ...params, difference: formatRupiah(tx.underpaid ?? 0) });
  if ((tx.overpaid ?? 0) > 0) return t('assignedOverpaid', { ...params, difference: formatRupiah(tx.overpaid ?? 0) });
  return t(tx.paid_late === 1 ? 'assignedLate' : 'assigned', params);
}

/**
 * A transaction's status as the payments page's badges show it: the shared name, in lower case like the
 * page's other badges (matched, unmatched, test), and "paid late" when so.
 */
function statusWord(status: TransactionStatus, late: boolean, lang: Lang): string {
  return status === 'paid' && late ? paidLateText(lang) : statusText(status, lang).toLowerCase();
}
