import { renderQueuedDailyReport } from '../../reports/render-daily-report-mail.js';
import type { MailKind } from './mail-kind.js';

/** A merchant's daily report to one owner (queued by services/reports/queue-daily-report-mails.ts; its transaction_id is the report's key). */
export const dailyReportMail: MailKind = {
  async compose(deps, row) {
    const mail = await renderQueuedDailyReport(deps, row.transaction_id);
    return mail === null ? { failed: 'report_not_found' } : { mail };
  },
};
