import { AppError, isAppError } from '../../domain/errors.js';
import { nextRefundAttemptAt } from '../../domain/refund.js';
import {
  deferPendingRefund,
  markRefundFailed,
  markRefundSucceeded,
  moveHeldToRefunded,
  readRefund,
  releaseRefundHold,
} from '../../storage/queries/refunds.js';
import type { PaymentsTable, RefundsTable, TransactionsTable } from '../../storage/schema.js';
import type { CodeIssuer, Deps } from '../deps.js';
import { announceRefund } from './announce-refund.js';
import { failureOf } from './refund-failure.js';

/** What became of one ask: the refund as it now stands, and the error a request answers when there is one. */
export interface AskedRefund {
  refund: RefundsTable;
  /** refund_refused / refund_exceeds_remaining (final, hold given back) or acquirer_unavailable (still pending). */
  error: AppError | null;
}

/**
 * Asks the acquirer for a pending refund (the request's first ask, or the resolver's later ones, always
 * with the same refund id, which the acquirer takes as its partnerRefundNo so a repeat never refunds
 * twice), then records the answer in one unit of work:
 *   succeeded:   the refund succeeds and its held amount becomes refunded (event, e-mail);
 *   refused:     it fails with a stable code and the held amount is given back (event);
 *   in progress: it stays pending, asked again later;
 *   no answer:   (timeout, network, 5xx) it stays pending with its amount held, NOT counted as refunded:
 *                the acquirer may or may not have moved the money, and only a final answer says which.
 * The network call is never inside a database transaction.
 */
export async function askAcquirerRefund(
  deps: Deps,
  issuer: CodeIssuer,
  tx: TransactionsTable,
  payment: PaymentsTable | null,
  refund: RefundsTable,
): Promise<AskedRefund> {
  const attempts = refund.attempts + 1;
  let outcome: Awaited<ReturnType<CodeIssuer['refund']>>;
  try {
    outcome = await issuer.refund(deps, tx, { id: refund.id, amount: refund.amount, reason: refund.reason });
  } catch (err) {
    const now = deps.now();
    await deferPendingRefund(deps.db, refund.id, {
      reference: null,
      attempts,
      nextAttemptAt: nextRefundAttemptAt(attempts, now),
      now,
    });
    if (!(isAppError(err) && err.code === 'acquirer_unavailable'))
      deps.logger.error({ err, refundId: refund.id }, 'refund ask failed; it stays pending');
    const error =
      isAppError(err) && err.code === 'acquirer_unavailable'
        ? err
        : new AppError('acquirer_unavailable', 'the acquirer gave no usable answer');
    return { refund: await current(deps, refund), error: withRetryAfter(error) };
  }

  if (outcome.status === 'in_progress') {
    const now = deps.now();
    await deferPendingRefund(deps.db, refund.id, {
      reference: outcome.reference,
      attempts,
      nextAttemptAt: nextRefundAttemptAt(attempts, now),
      now,
    });
    return { refund: await current(deps, refund), error: null };
  }

  const final = await deps.db.runInTransaction(async (trx) => {
    const now = deps.now();
    if (outcome.status === 'succeeded') {
      const done = await markRefundSucceeded(trx, refund.id, {
        reference: outcome.reference,
        completedAt: outcome.completedAt,
        attempts,
        now,
      });
      // Another resolver recorded its final answer first: nothing more to move.
      if (!done) return (await readRefund(trx, refund.id))!;
      const updated = await moveHeldToRefunded(trx, tx.id, done.amount, now);
      await announceRefund(trx, deps, updated, payment, done);
      return done;
    }
    const failed = await markRefundFailed(trx, refund.id, {
      code: outcome.code,
      message: outcome.message.slice(0, 500),
      attempts,
      now,
    });
    if (!failed) return (await readRefund(trx, refund.id))!;
    const updated = await releaseRefundHold(trx, tx.id, failed.amount, now);
    await announceRefund(trx, deps, updated, payment, failed);
    return failed;
  });
  return { refund: final, error: final.status === 'failed' ? failureOf(final) : null };
}

function withRetryAfter(err: AppError): AppError {
  return err.retryAfter !== undefined ? err : new AppError('acquirer_unavailable', err.message, { retryAfter: 30 });
}

async function current(deps: Deps, refund: RefundsTable): Promise<RefundsTable> {
  return (await readRefund(deps.db, refund.id)) ?? refund;
}
