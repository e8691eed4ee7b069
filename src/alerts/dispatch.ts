// Sending merchants' alerts: claims what is due (or one alert at once, the console's and the CLI's "Send
// test"), sends each on its channel (Telegram, Discord, e-mail, senders.ts) and records every attempt.
// The worker (workers/notify-dispatcher.ts) runs dispatchDueAlerts in every worker process beside the
// webhook dispatcher; claims (claim-alerts.ts) keep several from sending the same alert.
import { createSmtpSender } from '../mail/smtp.js';
import type { MailSender } from '../mail/sender.js';
import type { Deps } from '../services/deps.js';
import { claimAlert, claimDueAlerts, type ClaimedAlert } from '../services/notify/claim-alerts.js';
import { recordAlertAttempt, type AlertState } from '../services/notify/record-alert-attempt.js';
import { leaseMs } from '../services/webhooks/claim-deliveries.js';
import { postWebhook } from '../net/post-webhook.js';
import { sendAlert, type Post } from './senders.js';

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

export interface NotifyDispatchReport {
  claimed: number;
  states: Array<AlertState | 'unrecorded'>;
}

export const DEFAULT_CONCURRENCY = 8;

/** What one attempt came to: the alert's state and what the service answered. */
export interface AlertAttemptReport {
  state: AlertState;
  statusCode: number | null;
  error: string | null;
}

async function deliver(deps: Deps, alert: ClaimedAlert, options: NotifyDispatchOptions): Promise<AlertAttemptReport> {
  const attemptedAt = deps.now();
  const outcome = await sendAlert({ deps, post: options.post ?? postWebhook, mail: options.mail }, alert);
  const recorded = await recordAlertAttempt(deps, alert, { ...outcome, attemptedAt }, options.random);
  if (recorded.state !== 'succeeded') {
    // The error text never holds the channel's secret (senders.ts blanks it).
    deps.logger.warn(
      { alert: alert.id, channel: alert.channelId, type: alert.type, status: outcome.statusCode, error: outcome.error, state: recorded.state },
      'alert attempt failed',
    );
  }
  return { state: recorded.state, statusCode: outcome.statusCode, error: outcome.error };
}

/** One pass: claims what is due (up to the concurrency) and sends it all. Tests drive time with it. */
export async function dispatchDueAlerts(deps: Deps, options: NotifyDispatchOptions): Promise<NotifyDispatchReport> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const claimed = await claimDueAlerts(deps, { limit: concurrency, leaseMs: leaseMs(deps) });
  const settled = await Promise.allSettled(claimed.map((a) => deliver(deps, a, options)));
  const states = settled.map((s, i) => {
    if (s.status === 'fulfilled') return s.value.state;
    // Not lost: the claim runs out and the alert is sent again.
    deps.logger.warn({ err: s.reason, alert: claimed[i]!.id }, 'could not record an alert attempt; it is sent again once its claim expires');
    return 'unrecorded' as const;
  });
  return { claimed: claimed.length, states };
}

/**
 * Sends one alert now if it is due and no dispatcher holds it (the console's "Send test", so the person
 * who pressed it sees the answer at once); null when it was not this caller's to send.
 */
export async function dispatchAlertNow(deps: Deps, id: string, options: NotifyDispatchOptions): Promise<AlertAttemptReport | null> {
  const alert = await claimAlert(deps, id, leaseMs(deps));
  return alert === null ? null : deliver(deps, alert, options);
}

/** The SMTP sender for e-mail alerts, from SMTP_URL and MAIL_FROM; null when they are not set. */
export function alertMailSender(deps: Deps): MailSender | null {
  const { smtpUrl, mailFrom } = deps.config;
  return smtpUrl && mailFrom ? createSmtpSender(smtpUrl, mailFrom) : null;
}
