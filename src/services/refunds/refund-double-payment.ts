import { actorText, type Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { newRefundId } from '../../domain/ids.js';
import { isDoublePayment } from '../../domain/payment.js';
import { refuseLinkInRefundText } from '../../domain/refund.js';
import type { PaymentsTable, RefundsTable } from '../../storage/schema.js';
import { insertPaymentRefund, lockUnmatchedPayment, refundOfPayment } from '../../storage/queries/refunds.js';
import { paymentInScope } from '../../storage/queries/payment-review.js';
import { readTransaction } from '../../storage/queries/transactions.js';
import type { Deps } from '../deps.js';
import { writeAudit } from '../audit.js';

/**
 * Records that the merchant paid a double payment back: one refunds row naming the payment, for its
 * whole amount, against the transaction it paid twice, succeeded at once. The gateway moves no money:
 * a static-QRIS payment reached the merchant's own account, so the row is a record (recorded = 1) of
 * what the merchant did outside the gateway (cash, transfer), with its reference when given. A double
 * payment of an acquirer-issued code is the acquirer's to refund, and a SNAP refund (service 78) gives back
 * part of the code's one payment, not a second one: refused as refund_refused with what to do instead,
 * nothing recorded. The payment stays unmatched (its money never became the
 * transaction's: the transaction's refund sums are untouched) and can no longer be assigned. No event
 * (the refund events are the transaction refunds'); an audit row.
 */
export async function refundDoublePayment(
  deps: Deps,
  input: {
    paymentId: string;
    reason: string;
    reference?: string | null;
    actor: Actor;
    merchants?: readonly string[] | null;
  },
): Promise<{ payment: PaymentsTable; refund: RefundsTable }> {
  const reason = input.reason.trim();
  if (reason === '' || reason.length > 500)
    throw new AppError('invalid_parameter', 'reason is required (at most 500 characters)', { param: 'reason' });
  const reference = input.reference?.trim() || null;
  if (reference !== null && reference.length > 200)
    throw new AppError('invalid_parameter', 'reference is at most 200 characters', { param: 'reference' });
  // Neither is mailed to the payer today, but they are a refund's words like any other: no link or address.
  refuseLinkInRefundText(reason, 'reason');
  if (reference !== null) refuseLinkInRefundText(reference, 'reference');

  const payment = await paymentInScope(deps.db, input.paymentId, input.merchants ?? null);
  if (!payment) throw new AppError('payment_not_found', `no payment ${input.paymentId}`, { param: 'payment_id' });
  if (!isDoublePayment(payment)) {
    throw new AppError(
      'payment_not_double',
      `payment ${payment.id} is not a double payment (a payment for a transaction already paid)`,
      {
        param: 'payment_id',
      },
    );
  }
  const paid = await readTransaction(deps.db, payment.compared_transaction_id!);
  if (!paid)
    throw new AppError('transaction_not_found', `no transaction ${payment.compared_transaction_id}`, {
      param: 'payment_id',
    });
  // Asked before the database transaction: the issuer resolver may read sources, never inside it.
  const issuer = await deps.issuers.forTransaction(deps, paid);
  if (issuer.refunds !== 'record') {
    throw new AppError(
      'refund_refused',
      "a second payment of an acquirer-issued code is refunded at the acquirer (its merchant portal): the gateway's refunds give back the code's own payment",
    );
  }

  return deps.db.runInTransaction(async (trx) => {
    // The payment's row is held from here on, so an assign of it waits for this refund and then sees it.
    if (!(await lockUnmatchedPayment(trx, payment.id))) {
      throw new AppError('payment_already_matched', `payment ${payment.id} was matched meanwhile`, {
        param: 'payment_id',
      });
    }
    if (await refundOfPayment(trx, payment.id)) throw alreadyRefunded(payment.id);
    const now = deps.now();
    const refund: RefundsTable = {
      id: newRefundId(),
      transaction_id: paid.id,
      merchant_id: payment.merchant_id,
      mode: payment.mode,
      amount: payment.amount,
      reason,
      status: 'succeeded',
      recorded: 1,
      reference,
      payment_id: payment.id,
      requested_by: actorText(input.actor),
      idempotency_key: null,
      request_hash: null,
      error_code: null,
      error_message: null,
      attempts: 0,
      next_attempt_at: null,
      created_at: now,
      updated_at: now,
      completed_at: now,
    };
    // The unique index on payment_id is the last word: two refunds of one payment never both land.
    if (!(await insertPaymentRefund(trx, refund))) throw alreadyRefunded(payment.id);
    await writeAudit(trx, {
      actor: input.actor,
      action: 'payment.refund',
      subjectType: 'payment',
      subjectId: payment.id,
      details: { refund_id: refund.id, trxid: paid.id, amount: refund.amount, reason, reference, recorded: true },
      now,
    });
    return { payment, refund };
  });
}

function alreadyRefunded(paymentId: string): AppError {
  return new AppError('payment_already_refunded', `payment ${paymentId} was refunded already`, { param: 'payment_id' });
}
