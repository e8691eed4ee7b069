// Sending merchants' alerts: the sender of the outbox's alerts (services/notify/alert-queue.ts), each on
// its channel through the sender of the channel's type (channels/). The worker (workers/notify-dispatcher.ts)
// runs dispatchDueAlerts in every worker process beside the webhook dispatcher, and the console's and the
// CLI's "Send test" dispatchAlertNow; the outbox's claims keep several from sending the same alert.
import { createSmtpSender } from '../mail/smtp.js';
import type { MailSender } from '../mail/sender.js';
import { postWebhook } from '../net/post-webhook.js';
import type { Deps } from '../services/deps.js';
import { alertQueue, type ClaimedAlert } from '../services/notify/alert-queue.js';
import { dispatchPass, type PassReport } from '../services/outbox/dispatch-pass.js';
import { leaseMs } from '../services/outbox/lease-ms.js';
import type { Attempt, JobState } from '../services/outbox/queue.js';
import { runOneNow } from '../services/outbox/run-one-now.js';
import { sendAlert, type Post } from './channels/index.js';

export interface NotifyDispatchOptions {
  /** Alerts in flight at once (and claimed per pass). */
  concurrency?: number;
  /** Random numbers for retry jitter (tests pin it). */
  random?: () => number;
  /** The HTTP call; postWebhook by default. */
  post?: Post;
  /** Where e-mail alerts go out; null: none (they fail, saying SMTP_URL is not set). */
  mail: MailSender | null;
}

export type NotifyDispatchReport = PassReport;

/** What one attempt came to: the alert's state and what the service answered. */
export interface AlertAttemptReport {
  state: JobState;
  statusCode: number | null;
  error: string | null;
}

async function send(deps: Deps, alert: ClaimedAlert, options: NotifyDispatchOptions): Promise<Attempt> {
  const attemptedAt = deps.now();
  return { ...(await sendAlert({ deps, post: options.post ?? postWebhook, mail: options.mail }, alert)), attemptedAt };
}

// The error text never holds the channel's secret (channels/ blanks it).
const alertLog = {
  noun: 'alert',
  fields: (alert: ClaimedAlert, attempt: Attempt | null) => ({
    alert: alert.id,
    ...(attempt && { channel: alert.channelId, type: alert.type, status: attempt.statusCode, error: attempt.error }),
  }),
};

/** One pass: claims what is due (up to the concurrency) and sends it all. Tests drive time with it. */
export async function dispatchDueAlerts(deps: Deps, options: NotifyDispatchOptions): Promise<NotifyDispatchReport> {
  return dispatchPass(deps, alertQueue, (alert) => send(deps, alert, options), alertLog, options);
}

/**
 * Sends one alert now if it is due and no dispatcher holds it (the console's "Send test", so the person
 * who pressed it sees the answer at once); null when it was not this caller's to send.
 */
export async function dispatchAlertNow(
  deps: Deps,
  id: string,
  options: NotifyDispatchOptions,
): Promise<AlertAttemptReport | null> {
  const done = await runOneNow(deps, alertQueue, (alert) => send(deps, alert, options), id, {
    leaseMs: leaseMs(deps),
    random: options.random,
  });
  if (done === null) return null;
  if (done.state !== 'succeeded')
    deps.logger.warn({ ...alertLog.fields(done.job, done.attempt), state: done.state }, 'alert attempt failed');
  return { state: done.state, statusCode: done.attempt.statusCode, error: done.attempt.error };
}

/** The SMTP sender for e-mail alerts, from SMTP_URL and MAIL_FROM; null when they are not set. */
export function alertMailSender(deps: Deps): MailSender | null {
  const { smtpUrl, mailFrom } = deps.config;
  return smtpUrl && mailFrom ? createSmtpSender(smtpUrl, mailFrom) : null;
}
