// The alert dispatcher: the sender of the outbox's alerts (services/notify/alert-queue.ts), each on its
// channel through the sender of the channel's type (alert-channels/). Runs in every worker process
// beside the webhook dispatcher; the outbox's claims keep several from sending the same alert.
import { createSmtpSender } from '../mail/smtp.js';
import type { MailSender } from '../mail/sender.js';
import type { Deps } from '../services/deps.js';
import { alertQueue, type ClaimedAlert } from '../services/notify/alert-queue.js';
import type { Attempt } from '../services/outbox/queue.js';
import type { JobState } from '../services/outbox/queue.js';
import { runOneNow } from '../services/outbox/run-one-now.js';
import { sendAlert, type Post } from './alert-channels/index.js';
import { DEFAULT_CONCURRENCY, dispatchPass, leaseMs, type PassReport, runPasses } from './outbox-worker.js';
import { postWebhook } from './post-webhook.js';
import type { Worker } from './run-every.js';

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

// The error text never holds the channel's secret (alert-channels/ blanks it).
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
export async function dispatchAlertNow(deps: Deps, id: string, options: NotifyDispatchOptions): Promise<AlertAttemptReport | null> {
  const done = await runOneNow(deps, alertQueue, (alert) => send(deps, alert, options), id, { leaseMs: leaseMs(deps), random: options.random });
  if (done === null) return null;
  if (done.state !== 'succeeded') deps.logger.warn({ ...alertLog.fields(done.job, done.attempt), state: done.state }, 'alert attempt failed');
  return { state: done.state, statusCode: done.attempt.statusCode, error: done.attempt.error };
}

/** The SMTP sender for e-mail alerts, from SMTP_URL and MAIL_FROM; null when they are not set. */
export function alertMailSender(deps: Deps): MailSender | null {
  const { smtpUrl, mailFrom } = deps.config;
  return smtpUrl && mailFrom ? createSmtpSender(smtpUrl, mailFrom) : null;
}

/**
 * Runs passes every WEBHOOK_DISPATCH_INTERVAL_MS; after a full pass it goes again at once, so a backlog
 * drains at the concurrency's pace. A failing pass is logged and retried at the next tick; while the
 * database is unavailable the dispatcher backs off (outage-backoff.ts).
 */
export function startNotifyDispatcher(deps: Deps, options: Partial<NotifyDispatchOptions> & { intervalMs?: number } = {}): Worker {
  const intervalMs = options.intervalMs ?? deps.config.webhookDispatchIntervalMs;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const ownSender = options.mail === undefined;
  const mail = ownSender ? alertMailSender(deps) : (options.mail ?? null);
  const loop = runPasses(deps, intervalMs, concurrency, () => dispatchDueAlerts(deps, { ...options, concurrency, mail }), 'alert dispatch failed');
  return {
    async stop() {
      await loop.stop();
      // Its SMTP connection would otherwise hold the process until the socket's timeout.
      if (ownSender) mail?.close();
    },
  };
}
