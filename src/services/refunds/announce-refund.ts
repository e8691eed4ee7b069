import { presentRefund } from '../../domain/refund.js';
import { presentTransaction } from '../../domain/transaction.js';
import type { Tx } from '../../storage/executor.js';
import { refundsOfTransaction, scheduleRefundNotice, setRefundNoticeDue } from '../../storage/queries/refunds.js';
import type { PaymentsTable, RefundsTable, TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { enqueueEmail } from '../email/enqueue-email.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';

/**
 * What a refund's final change carries with it, in the same unit of work: its `refund.succeeded` or
 * `refund.failed` event (the transaction as the API answers it, with its refunds, plus the refund), and
 * for a success, when the transaction has an e-mail address, its place in a notice to the payer: at most
 * one notice per transaction a REFUND_NOTICE_WINDOW_SECONDS, the refunds of a window told together
 * (scheduleRefundNotice). The notice's row is queued by its first refund; the others find it there.
 */
export async function announceRefund(
  trx: Tx,
  deps: Deps,
  tx: TransactionsTable,
  payment: PaymentsTable | null,
  refund: RefundsTable,
): Promise<void> {
  const now = deps.now();
  const refunds = await refundsOfTransaction(trx, tx.id);
  await enqueueEvent(trx, deps.state.statusBus, {
    merchantId: tx.merchant_id,
    mode: tx.mode,
    type: refund.status === 'succeeded' ? 'refund.succeeded' : 'refund.failed',
    transactionId: tx.id,
    data: {
      ...presentTransaction(tx, payment, now, deps.config.publicBaseUrl, refunds),
      refund: presentRefund(refund),
    },
    now,
  });
  if (refund.status === 'succeeded' && tx.email !== null) {
    const due = await scheduleRefundNotice(trx, tx.id, now, deps.config.refundNoticeWindowSeconds * 1000);
    await setRefundNoticeDue(trx, refund.id, due);
    await enqueueEmail(trx, {
      merchantId: tx.merchant_id,
      transactionId: tx.id,
      kind: `refunds:${due}`,
      recipient: tx.email,
      now,
      dueAt: due,
    });
  }
}
