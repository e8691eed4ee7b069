// The simulator's refund (service 78), with the rules acquirers document: only a paid code of this
// partner, refunds never summing over the paid amount, one refund per partnerRefundNo however often it
// is asked (a repeat answers the same result), and a fully refunded code querying as 04.
import { randomBase62 } from '../../domain/ids.js';
import { snapTimestamp } from '../../payment-sources/snap/signature.js';
import type { SimulatedCode, SimulatedRefund, SimulatorPartner } from './types.js';

type Answer = [status: number, body: Record<string, unknown>];
type Fail = (status: number, caseCode: string, message: string) => Answer;

/** What the refund endpoint reads and changes of the simulator, and the tests' controls. */
export interface RefundDesk {
  code(reference: string): SimulatedCode | undefined;
  /** Keyed by `${clientId}:${partnerRefundNo}`. */
  readonly refunds: Map<string, SimulatedRefund>;
  /** One-shot: the next new refund is refused by the payer's issuer (403 78 05 Do Not Honor, this reason). */
  refuseNextRefund: string | null;
  /** One-shot: the next new refund answers "in progress" (202 2027800) to this many asks, then settles. */
  refundInProgressAsks: number;
}

const AMOUNT = /^[1-9][0-9]{0,12}\.00$/;

export function simulateRefund(
  desk: RefundDesk,
  partner: SimulatorPartner,
  body: Record<string, unknown>,
  fail: Fail,
): Answer {
  const refundNo = body.partnerRefundNo;
  const amount = body.refundAmount as { value?: unknown; currency?: unknown } | undefined;
  if (typeof refundNo !== 'string' || refundNo === '' || refundNo.length > 64)
    return fail(400, '02', 'Invalid Mandatory Field [partnerRefundNo]');
  if (typeof amount?.value !== 'string' || !AMOUNT.test(amount.value) || amount.currency !== 'IDR') {
    return fail(400, '01', 'Invalid Field Format [refundAmount]');
  }
  if (body.reason !== undefined && (typeof body.reason !== 'string' || body.reason.length > 256))
    return fail(400, '01', 'Invalid Field Format [reason]');
  if (body.merchantId !== partner.merchantId) return fail(404, '08', 'Invalid Merchant');
  const code = desk.code(String(body.originalReferenceNo ?? body.originalPartnerReferenceNo ?? ''));
  if (!code || code.partner !== partner) return fail(404, '01', 'Transaction Not Found');
  if (body.originalPartnerReferenceNo !== undefined && body.originalPartnerReferenceNo !== code.partnerReferenceNo) {
    return fail(404, '01', 'Transaction Not Found');
  }
  const value = Number(amount.value.slice(0, -3));

  const key = `${partner.clientId}:${refundNo}`;
  const earlier = desk.refunds.get(key);
  if (earlier) {
    // The same partnerRefundNo for another refund is a client's mistake, never a second refund.
    if (earlier.codeReference !== code.referenceNo || earlier.amount !== value)
      return fail(409, '00', 'Conflict. [partnerRefundNo already used]');
    return answerOf(code, advance(desk, code, earlier), fail);
  }

  if (code.status !== '00' && code.status !== '04') return fail(403, '15', 'Transaction Not Permitted. [Not Paid]');
  const remaining = code.amount - refundedSum(desk, code);
  if (value > remaining)
    return fail(403, '02', `Exceeds Transaction Amount Limit. [refundAmount over the remaining ${remaining}.00]`);

  const refund: SimulatedRefund = {
    partnerRefundNo: refundNo,
    referenceNo: `R${snapTimestamp(Date.now()).slice(0, 10).replace(/-/g, '')}${randomBase62(12)}`,
    codeReference: code.referenceNo,
    amount: value,
    reason: typeof body.reason === 'string' ? body.reason : '',
    status: 'succeeded',
    pendingAsks: 0,
    refundedAt: null,
    refusal: null,
  };
  // Kept first, so that settling counts it.
  desk.refunds.set(key, refund);
  if (desk.refuseNextRefund !== null) {
    refund.status = 'refused';
    refund.refusal = { status: 403, caseCode: '05', message: `Do Not Honor. [${desk.refuseNextRefund}]` };
    desk.refuseNextRefund = null;
  } else if (desk.refundInProgressAsks > 0) {
    // This ask is the first of them.
    refund.status = 'in_progress';
    refund.pendingAsks = desk.refundInProgressAsks - 1;
    desk.refundInProgressAsks = 0;
  } else {
    settle(desk, code, refund);
  }
  return answerOf(code, refund, fail);
}

/** The sum of a code's refunds that are done or under way. */
export function refundedSum(
  desk: Pick<RefundDesk, 'refunds'>,
  code: SimulatedCode,
  only?: SimulatedRefund['status'],
): number {
  let sum = 0;
  for (const r of desk.refunds.values()) {
    if (r.codeReference === code.referenceNo && r.status !== 'refused' && (only === undefined || r.status === only))
      sum += r.amount;
  }
  return sum;
}

/** A repeated ask of a refund in progress brings it one ask closer to settling. */
function advance(desk: RefundDesk, code: SimulatedCode, refund: SimulatedRefund): SimulatedRefund {
  if (refund.status !== 'in_progress') return refund;
  if (refund.pendingAsks > 0) refund.pendingAsks -= 1;
  else settle(desk, code, refund);
  return refund;
}

function settle(desk: RefundDesk, code: SimulatedCode, refund: SimulatedRefund): void {
  refund.status = 'succeeded';
  refund.refundedAt = Date.now();
  // SNAP's latestTransactionStatus 04: refunded, once all of it is.
  if (refundedSum(desk, code, 'succeeded') >= code.amount) code.status = '04';
}

function answerOf(code: SimulatedCode, refund: SimulatedRefund, fail: Fail): Answer {
  if (refund.refusal) return fail(refund.refusal.status, refund.refusal.caseCode, refund.refusal.message);
  const common = {
    originalReferenceNo: code.referenceNo,
    originalPartnerReferenceNo: code.partnerReferenceNo,
    referenceNo: refund.referenceNo,
    partnerRefundNo: refund.partnerRefundNo,
    refundAmount: { value: `${refund.amount}.00`, currency: 'IDR' },
  };
  if (refund.status === 'in_progress')
    return [202, { responseCode: '2027800', responseMessage: 'Request In Progress', ...common }];
  return [
    200,
    {
      responseCode: '2007800',
      responseMessage: 'Successful',
      ...common,
      refundTime: snapTimestamp(refund.refundedAt!),
    },
  ];
}
