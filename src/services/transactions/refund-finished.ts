import { presentRefund } from '../../domain/refund.js';
import { presentTransaction } from '../../domain/transaction.js';
import type { Tx } from '../../storage/executor.js';
import { refundsOfTransaction } from '../../storage/queries/refunds.js';
import type { PaymentsTable, RefundsTable, TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { enqueueEmail } from '../email/enqueue-email.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';

/**
 * What a refund's final change carries with it, in the same unit of work: its `refund.succeeded` or
 * `refund.failed` event (the transaction as the API answers it, with its refunds, plus the refund), and
 * for a success the payer's refund notice when the transaction has an e-mail address.
 */
export async function refundFinished(trx: Tx, deps: Deps, tx: TransactionsTable, payment: PaymentsTable | null, refund: RefundsTable): Promise<void> {
  const now = deps.now();
  const refunds = await refundsOfTransaction(trx, tx.id);
  await enqueueEvent(trx, deps.state.statusBus, {
    merchantId: tx.merchant_id,
    mode: tx.mode,
    type: refund.status === 'succeeded' ? 'refund.succeeded' : 'refund.failed',
    transactionId: tx.id,
    data: { ...presentTransaction(tx, payment, now, deps.config.publicBaseUrl, refunds), refund: presentRefund(refund) },
    now,
  });
  if (refund.status === 'succeeded' && tx.email !== null) {
    await enqueueEmail(trx, { merchantId: tx.merchant_id, transactionId: tx.id, kind: `refund:${refund.id}`, recipient: tx.email, now });
  }
}
