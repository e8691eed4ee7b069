import { reportMailKey, yesterday } from '../../domain/daily-report.js';
import { newEmailId } from '../../domain/ids.js';
import { insertEmailOnce } from '../../storage/queries/outbox.js';
import { claimDailyReportRun, mailableOwnersOf, merchantsDueForDailyReport } from '../../storage/queries/reports.js';
import type { Deps } from '../deps.js';

/**
 * Queues yesterday's (WIB) report e-mail to the owners of every merchant that takes it and has not had
 * it yet: per merchant one database transaction, which claims the merchant's day (daily_report_runs,
 * unique per merchant and day) and, only when this caller's claim made the row, puts one outbox row per
 * owner. Any number of instances may run this at once: one of them queues each merchant's day. The
 * figures are read when the mailer sends (services/email/send-due-emails.ts), after the day has ended.
 */
export async function queueDailyReportMails(deps: Deps): Promise<Array<{ merchantId: string; mails: number }>> {
  const now = deps.now();
  const day = yesterday(now);
  const queued: Array<{ merchantId: string; mails: number }> = [];
  for (const merchantId of await merchantsDueForDailyReport(deps.db, day)) {
    const mails = await deps.db.runInTransaction(async (trx) => {
      const owners = await mailableOwnersOf(trx, merchantId);
      if (!(await claimDailyReportRun(trx, { merchant_id: merchantId, day, mails: owners.length, created_at: now })))
        return null;
      for (const owner of owners) {
        await insertEmailOnce(trx, {
          id: newEmailId(),
          merchant_id: merchantId,
          transaction_id: reportMailKey(merchantId, day, owner.id),
          kind: 'daily_report',
          recipient: owner.email,
          status: 'pending',
          attempts: 0,
          next_attempt_at: now,
          locked_until: null,
          last_error: null,
          created_at: now,
          sent_at: null,
        });
      }
      return owners.length;
    });
    if (mails !== null) queued.push({ merchantId, mails });
  }
  return queued;
}
