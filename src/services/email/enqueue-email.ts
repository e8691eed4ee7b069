import { newEmailId } from '../../domain/ids.js';
import type { Executor } from '../../storage/executor.js';
import { insertEmailOnce } from '../../storage/queries/outbox.js';
import { pendingJob } from '../../storage/queries/outbox-jobs.js';
import type { EmailKind } from '../../storage/schema.js';

/**
 * Queues the invoice, receipt or a refunds' notice for a transaction's e-mail address, once per kind;
 * due at `dueAt` (a refunds' notice due later) or at once.
 */
export async function enqueueEmail(
  db: Executor,
  mail: { merchantId: string; transactionId: string; kind: EmailKind; recipient: string; now: number; dueAt?: number },
): Promise<void> {
  await insertEmailOnce(db, {
    id: newEmailId(),
    merchant_id: mail.merchantId,
    transaction_id: mail.transactionId,
    kind: mail.kind,
    recipient: mail.recipient,
    ...pendingJob(mail.now, mail.dueAt),
    last_error: null,
    sent_at: null,
  });
}
