import { presentTransaction } from '../../domain/transaction.js';
import type { Tx } from '../../storage/executor.js';
import type { PaymentsTable, TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { enqueueEmail } from '../email/enqueue-email.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import type { OutboxWrites } from '../outbox/outbox-writes.js';

/**
 * What every way of paying a transaction writes with it, in the same unit of work: its `transaction.paid`
 * event (the transaction as the API answers it, with the payment that paid it) and, when it has an e-mail
 * address, the payer's receipt. Settling a payment and accepting what a kept-open transaction received.
 */
export async function announcePaid(
  trx: Tx,
  deps: Deps,
  transaction: TransactionsTable,
  payment: PaymentsTable,
  now: number,
  writes?: OutboxWrites,
): Promise<void> {
  await enqueueEvent(
    trx,
    deps.state.statusBus,
    {
      merchantId: transaction.merchant_id,
      mode: transaction.mode,
      type: 'transaction.paid',
      transactionId: transaction.id,
      paymentId: payment.id,
      data: presentTransaction(transaction, payment, now, deps.config.publicBaseUrl),
      now,
    },
    writes,
  );
  if (transaction.email !== null) {
    await enqueueEmail(trx, {
      merchantId: transaction.merchant_id,
      transactionId: transaction.id,
      kind: 'receipt',
      recipient: transaction.email,
      now,
    });
  }
}
