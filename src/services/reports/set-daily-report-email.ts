import type { Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { setDailyReportEmail } from '../../storage/queries/reports.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';

/**
 * Turns a merchant's daily report e-mail to its owners on or off; audited. `scope` is the merchants the
 * asker may see (null: every merchant, the CLI's operator); another merchant is not found, as an unknown one.
 */
export async function setDailyReportMail(
  deps: Deps,
  scope: readonly string[] | null,
  merchantId: string,
  on: boolean,
  actor: Actor,
): Promise<void> {
  const now = deps.now();
  await deps.db.runInTransaction(async (trx) => {
    if ((scope !== null && !scope.includes(merchantId)) || !(await setDailyReportEmail(trx, merchantId, on)))
      throw new AppError('merchant_not_found', `no merchant ${merchantId}`, { param: 'merchant' });
    await writeAudit(trx, {
      actor,
      action: 'merchant.daily_report',
      subjectType: 'merchant',
      subjectId: merchantId,
      details: { daily_report_email: on },
      now,
    });
  });
}
