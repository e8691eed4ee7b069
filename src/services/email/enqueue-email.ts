import { newEmailId } from '../../domain/ids.js';
import type { Executor } from '../../storage/executor.js';
import { insertEmailOnce } from '../../storage/queries/outbox.js';
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
    status: 'pending',
    attempts: 0,
    next_attempt_at: mail.dueAt ?? mail.now,
    locked_until: null,
    last_error: null,
    created_at: mail.now,
    sent_at: null,
  });
}
