// The e-mails of the outbox (`emails`): payers' invoices, receipts and refund notices, and owners'
// daily reports. Each row's kind names the handler that composes it (kinds/index.ts).
import { nextEmailAttemptAt } from '../../domain/mail-retry.js';
import { dueEmails } from '../../storage/queries/emails.js';
import type { EmailsTable } from '../../storage/schema.js';
import type { OutboxQueue } from '../outbox/queue.js';

export const emailQueue: OutboxQueue<EmailsTable> = {
  table: 'emails',
  due: dueEmails,
  retryDelayMs(attemptsMade, _attempt, now, random) {
    const at = nextEmailAttemptAt(attemptsMade, now, random);
    return at === null ? null : at - now;
  },
};
