import type { Deps } from '../services/deps.js';
import { queueDailyReportMails } from '../services/reports/queue-daily-report-mails.js';
import { runEvery, type Worker } from '../rounds/run-every.js';

/**
 * Every five minutes: once a WIB day has ended, queues its report e-mail to the owners of each merchant
 * that takes it (the mailer sends them). The first round after 00:00 WIB finds yesterday not yet queued;
 * every later one finds it done (one indexed read). Several instances may run it: each merchant's day
 * is queued by one of them (services/reports/queue-daily-report-mails.ts).
 */
export function startDailyReports(deps: Deps, intervalMs = 5 * 60_000): Worker {
  return runEvery(
    intervalMs,
    async () => {
      for (const q of await queueDailyReportMails(deps))
        deps.logger.info({ merchant: q.merchantId, mails: q.mails }, 'daily report e-mails queued');
    },
    deps.logger,
    'daily report round failed',
  );
}
