import { createSmtpSender, describeSmtpUrl } from '../mail/smtp.js';
import type { MailSender } from '../mail/sender.js';
import type { Deps } from '../services/deps.js';
import { sendDueEmails, type SendDueEmailsOptions } from '../services/email/send-due-emails.js';
import { runEvery, type Worker } from '../rounds/run-every.js';

export interface MailerOptions extends SendDueEmailsOptions {
  intervalMs?: number;
  /** Tests pass their own; by default SMTP_URL decides (none set: rows are recorded as skipped). */
  sender?: MailSender | null;
}

/**
 * Sends payer e-mails from the `emails` outbox on an interval. A run never overlaps the previous one;
 * a failed run is logged and the next tick tries again (claimed rows come back when their lease ends).
 */
export function startMailer(deps: Deps, options: MailerOptions = {}): Worker {
  const { smtpUrl, mailFrom } = deps.config;
  const sender =
    options.sender !== undefined ? options.sender : smtpUrl && mailFrom ? createSmtpSender(smtpUrl, mailFrom) : null;
  if (sender === null) {
    // Said once, at info: running without e-mail is a normal choice, not a fault to repeat every tick.
    deps.logger.info('SMTP_URL not set: payer e-mails are recorded as skipped');
  } else if (smtpUrl && options.sender === undefined) {
    deps.logger.info({ smtp: describeSmtpUrl(smtpUrl) }, 'mailer started');
  }

  let stopping = false;
  const keepGoing = () => !stopping;
  const worker = runEvery(
    options.intervalMs ?? deps.config.mailIntervalMs,
    async () => {
      for (const r of await sendDueEmails(deps, sender, { keepGoing, ...options })) {
        if (r.outcome.status === 'sent') deps.logger.info({ email: r.id, kind: r.kind }, 'e-mail sent');
        else if (r.outcome.status === 'skipped')
          deps.logger.info({ email: r.id, kind: r.kind, reason: r.outcome.reason }, 'e-mail skipped');
        else
          deps.logger.warn(
            { email: r.id, kind: r.kind, status: r.outcome.status, error: r.outcome.error },
            'e-mail not sent',
          );
      }
    },
    deps.logger,
    'mailer run failed',
  );
  // A run may have a backlog of e-mails before it: stopping ends it after the send under way.
  return {
    async stop() {
      stopping = true;
      await worker.stop();
      // The sender keeps its SMTP connection open between ticks; left open at stop, it would hold the
      // process (and the relay's slot) until the socket timeout, 30 s. A sender a test passed is its own.
      if (options.sender === undefined) sender?.close();
    },
  };
}
