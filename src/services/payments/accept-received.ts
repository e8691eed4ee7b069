import type { Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { isLate } from '../../domain/matching.js';
import { paymentDifference } from '../../domain/payment-difference.js';
import { markTransactionPaid, paymentsOfTransaction } from '../../storage/queries/payments.js';
import { readTransaction } from '../../storage/queries/transactions.js';
import type { PaymentsTable, TransactionsTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { announcePaid } from './announce-paid.js';

/**
 * A person closes a transaction kept open after a part payment by accepting what it received: one
 * database transaction marks it paid with amount_paid as it is and underpaid the rest it will not
 * receive (as an accepted difference does), writes its `transaction.paid` event (and receipt) as every
 * other way of paying does, and the audit row `transaction.accept_received`. A pending or an expired
 * transaction that received something can be (an expired one is paid late: the payer paid part in time
 * and left, and the owner keeps what came); a paid one is `transaction_already_paid`, any other (nothing
 * received, or cancelled: the owner chose to end it) `transaction_not_kept_open`. `merchants` limits the transactions a
 * console user may close; another merchant's is not found, exactly as an unknown one.
 */
export async function acceptReceived(
  deps: Deps,
  input: { trxid: string; actor: Actor; merchants?: readonly string[] | null },
): Promise<{ transaction: TransactionsTable; payment: PaymentsTable }> {
  return deps.db.runInTransaction(async (trx) => {
    const tx = await readTransaction(trx, input.trxid);
    const scope = input.merchants ?? null;
    if (!tx || (scope !== null && !scope.includes(tx.merchant_id))) {
      throw new AppError('transaction_not_found', `no transaction ${input.trxid}`, { param: 'trxid' });
    }
    if (tx.status === 'paid')
      throw new AppError('transaction_already_paid', `transaction ${tx.id} is already paid`, { param: 'trxid' });
    const received = tx.amount_paid ?? 0;
    if ((tx.status !== 'pending' && tx.status !== 'expired') || received === 0) {
      const why = received === 0 ? 'has received nothing' : `is ${tx.status}`;
      throw new AppError(
        'transaction_not_kept_open',
        `transaction ${tx.id} ${why}: only a pending or expired transaction that received a part payment can be closed with what it received`,
        {
          param: 'trxid',
        },
      );
    }
    const payments = await paymentsOfTransaction(trx, tx.id);
    const last = payments.filter((p) => p.status === 'matched' && p.reason === null).at(-1);
    if (!last)
      throw new AppError('transaction_not_kept_open', `transaction ${tx.id} has no payment bound to it`, {
        param: 'trxid',
      });
    const now = deps.now();
    const { underpaid } = paymentDifference(received, tx.total_amount);
    // The shared conditional update (settle-payment's): it holds only while amount_paid is still what was
    // read, so a part assigned meanwhile, or a payment that paid it, leaves it unchanged.
    const paid = await markTransactionPaid(trx, tx.id, {
      paymentId: last.id,
      paidAt: now,
      late: isLate(tx, now, now),
      now,
      amountPaidBefore: received,
      amountPaid: received,
      underpaid,
      overpaid: 0,
    });
    // Another part was assigned, or it was paid, since the read: nothing changed; the person looks again.
    if (!paid)
      throw new AppError('transaction_already_paid', `transaction ${tx.id} changed meanwhile; look at it again`, {
        param: 'trxid',
      });
    await announcePaid(trx, deps, paid, last, now);
    await writeAudit(trx, {
      actor: input.actor,
      action: 'transaction.accept_received',
      subjectType: 'transaction',
      subjectId: paid.id,
      details: {
        total_amount: paid.total_amount,
        amount_paid: received,
        underpaid,
        payments: payments.filter((p) => p.reason === null).length,
        paid_late: paid.paid_late === 1,
      },
      now,
    });
    return { transaction: paid, payment: last };
  });
}
