import { actorText, type Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { readTransaction } from '../../storage/queries/transactions.js';
import type { Deps } from '../deps.js';
import { writeAudit } from '../audit.js';
import { recordPaymentIn, type RecordPaymentResult } from './record-payment.js';

export interface ConfirmPaymentInput {
  trxid: string;
  /** The payment's reference as the operator sees it (bank or wallet reference). */
  reference: string;
  /** What was received; when omitted, what is still due (the total, less what a transaction kept open received). */
  amount: number | null;
  actor: Actor;
}

/**
 * An operator's confirmation is a payment from the `manual` source: it goes through the same matcher
 * and outbox as every other report, with the audit row in the same database transaction. Its id is the
 * merchant and reference, so one bank reference can never confirm two transactions. On a transaction
 * kept open after a part payment it confirms the rest: exactly what is still due pays it.
 */
export async function confirmPayment(deps: Deps, input: ConfirmPaymentInput): Promise<RecordPaymentResult> {
  const reference = input.reference.trim();
  if (reference === '' || reference.length > 128 || /[\p{Cc}\p{Cf}]/u.test(reference)) {
    throw new AppError('invalid_parameter', 'reference must be 1 to 128 characters', { param: 'reference' });
  }
  return deps.db.runInTransaction(async (trx) => {
    const tx = await readTransaction(trx, input.trxid);
    if (!tx) throw new AppError('transaction_not_found', `no transaction ${input.trxid}`, { param: 'trxid' });
    if (tx.status === 'paid')
      throw new AppError('transaction_already_paid', `transaction ${tx.id} is already paid`, { param: 'trxid' });
    const now = deps.now();
    // A transaction kept open after a part payment is owed only the rest: that is what is confirmed.
    const received = tx.amount_paid ?? 0;
    const result = await recordPaymentIn(trx, deps, {
      merchantId: tx.merchant_id,
      mode: tx.mode,
      source: 'manual',
      sourcePaymentId: `${tx.merchant_id}:${reference}`,
      amount: input.amount ?? tx.total_amount - received,
      paidAt: now,
      trxid: tx.id,
      reference,
      issuer: null,
      payerName: null,
      raw: { confirmed_by: actorText(input.actor) },
      confirmsRest: received > 0,
    });
    if (result.outcome === 'duplicate') {
      throw new AppError(
        'reference_already_recorded',
        `reference ${reference} was already recorded as payment ${result.payment.id}`,
        { param: 'reference' },
      );
    }
    await writeAudit(trx, {
      actor: input.actor,
      action: 'payment.confirm',
      subjectType: 'transaction',
      subjectId: tx.id,
      details: {
        payment_id: result.payment.id,
        reference,
        amount: result.payment.amount,
        outcome: result.outcome,
        reason: result.reason,
      },
      now,
    });
    return result;
  });
}
