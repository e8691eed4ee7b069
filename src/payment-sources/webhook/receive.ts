import { AppError } from '../../domain/errors.js';
import type { Deps } from '../../services/deps.js';
import { recordPayment } from '../../services/payments/record-payment.js';
import type { InboundAnswer, InboundPost } from '../kind.js';
import { parseWebhookPayment } from './payload.js';
import { verifySignature, type SignatureCheck } from './signature.js';

const SIGNATURE_PROBLEM: Record<Exclude<SignatureCheck, { ok: true }>['why'], string> = {
  missing: 'X-Signature is required: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">',
  malformed: 'X-Signature must be t=<unix seconds>,v1=<64 hex digits>',
  expired: 'the signature timestamp is more than 5 minutes away from the server clock',
  mismatch: 'the signature does not match the body',
};

/**
 * A signed webhook's report: one payment `{"id", "amount", "paid_at", "reference"?, "payer"?, "issuer"?}`,
 * `X-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` within 5 minutes of the clock.
 */
export async function receiveWebhookPost(deps: Deps, post: InboundPost): Promise<InboundAnswer> {
  const secret = typeof post.config.secret === 'string' ? post.config.secret : '';
  if (secret === '') throw new AppError('source_not_found', 'no such payment source');
  const now = deps.now();
  const check = verifySignature(post.headers['x-signature'], secret, post.body, now);
  if (!check.ok) {
    post.log.warn({ source: post.source.id, why: check.why }, 'webhook source: signature rejected');
    throw new AppError('invalid_signature', SIGNATURE_PROBLEM[check.why]);
  }
  const payment = parseWebhookPayment(post.body, { min: 1, max: deps.config.amountMax }, now);
  const result = await recordPayment(deps, {
    merchantId: post.source.merchant_id,
    mode: post.config.mode === 'test' ? 'test' : 'live',
    source: post.source.id,
    sourcePaymentId: payment.id,
    amount: payment.amount,
    paidAt: payment.paidAt,
    reference: payment.reference,
    payerName: payment.payer,
    issuer: payment.issuer,
    raw: payment.raw,
  });
  return {
    status: 200,
    body: {
      success: true,
      data: {
        payment_id: result.payment.id,
        status: result.outcome,
        trxid: result.payment.transaction_id,
        reason: result.reason,
      },
    },
  };
}
