import type { Tx } from '../../storage/executor.js';
import type { TransactionsTable } from '../../storage/schema.js';
import { enqueueEmail } from '../email/enqueue-email.js';

/** The invoice e-mail of a new transaction that has an address, in the create's own unit of work. */
export function queueInvoice(trx: Tx, row: TransactionsTable, now: number): Promise<void> {
  return enqueueEmail(trx, {
    merchantId: row.merchant_id,
    transactionId: row.id,
    kind: 'invoice',
    recipient: row.email!,
    now,
  });
}
