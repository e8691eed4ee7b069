// What an acquirer's answer to a refund (service 78) means for the gateway. Pure: refund.ts asks, this
// judges, so every provider's wording is decided in one place and tested without a network.
import { AppError } from '../../domain/errors.js';
import type { IssuerRefundOutcome } from '../../services/deps.js';
import { describeAnswer, type SnapAnswer } from './client.js';
import { parseSnapTimestamp } from './signature.js';

// SNAP case codes (the last two digits) that say the amount is more than the acquirer will still give
// back: 403xx02 "Exceeds Transaction Amount Limit", 403xx14 "Insufficient Funds", 404xx13 "Invalid Amount".
const EXCEEDS_CASES: ReadonlySet<string> = new Set(['40302', '40314', '40413']);
// Providers also say it in words, in English or Indonesian.
const EXCEEDS_WORDS = /exceed|remaining|insufficient|melebihi|sisa|over the (paid|refundable)/i;

/**
 * succeeded: a 2xx with a 200xxxx responseCode (referenceNo and refundTime read when given; a missing or
 * garbled refundTime is `now`). in_progress: HTTP 202 or a 202xxxx responseCode. refused: any other
 * answer the acquirer gave (4xx, a 2xx without a success code), final, the acquirer's responseCode and
 * message kept in the message. 5xx, 429 and no answer never reach here (the client throws
 * acquirer_unavailable). An answer about another payment is an acquirer_error: it proves nothing.
 */
export function refundOutcome(answer: SnapAnswer, asked: { referenceNo: string }, now: number): IssuerRefundOutcome {
  const body = answer.body ?? {};
  if (
    typeof body.originalReferenceNo === 'string' &&
    body.originalReferenceNo !== '' &&
    body.originalReferenceNo !== asked.referenceNo
  ) {
    throw new AppError('acquirer_error', 'the acquirer answered refund for another originalReferenceNo');
  }
  const code = answer.responseCode ?? '';
  const ok = answer.status >= 200 && answer.status <= 299;
  const reference = refundReference(body.referenceNo);
  if (ok && (answer.status === 202 || /^202\d{4}$/.test(code))) return { status: 'in_progress', reference };
  if (ok && answer.body !== null && /^200\d{4}$/.test(code)) {
    const time = typeof body.refundTime === 'string' ? parseSnapTimestamp(body.refundTime) : null;
    return { status: 'succeeded', reference, completedAt: time ?? now };
  }
  const described = describeAnswer(answer);
  const exceeds =
    EXCEEDS_CASES.has(`${code.slice(0, 3)}${code.slice(5, 7)}`) || EXCEEDS_WORDS.test(answer.responseMessage);
  return exceeds
    ? {
        status: 'refused',
        code: 'refund_exceeds_remaining',
        message: `the acquirer counts less left to refund than asked (${described})`,
      }
    : { status: 'refused', code: 'refund_refused', message: `the acquirer refused the refund (${described})` };
}

/** The acquirer's id of the refund, when it gave a usable one. */
function refundReference(v: unknown): string | null {
  return typeof v === 'string' && v.trim() !== '' && v.length <= 64 ? v.trim() : null;
}
