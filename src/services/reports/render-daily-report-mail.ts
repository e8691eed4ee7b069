import { parseReportMailKey } from '../../domain/daily-report.js';
import type { RenderedMail } from '../../mail/templates.js';
import { renderDailyReportMail } from '../../mail/daily-report-mail.js';
import { merchantById } from '../../storage/queries/merchants.js';
import type { Deps } from '../deps.js';
import { sourceNamesOf } from '../sources/source-names.js';
import { reportOf } from './report-of.js';

/** A queued daily report e-mail, rendered from the figures as they are now (live mode); null if its key or merchant is gone. */
export async function renderQueuedDailyReport(deps: Deps, key: string): Promise<RenderedMail | null> {
  const parsed = parseReportMailKey(key);
  if (parsed === null) return null;
  const merchant = await merchantById(deps.db, parsed.merchantId);
  if (!merchant) return null;
  const report = await reportOf(
    deps,
    [{ id: merchant.id, name: merchant.name }],
    { fromDay: parsed.day, toDay: parsed.day },
    'live',
  );
  const row = report.rows[0]!;
  return renderDailyReportMail({
    merchantName: merchant.name,
    row,
    sourceNames: await sourceNamesOf(deps, Object.keys(row.by_source)),
  });
}
