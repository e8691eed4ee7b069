import { buildDailyRows, rangeBounds, reportTotals, wibDayText, type ReportRange } from '../../domain/daily-report.js';
import type { Mode } from '../../domain/records.js';
import { receivedByDay, refundedByDay } from '../../storage/queries/reports.js';
import type { Deps } from '../deps.js';
import type { DailyReportRow, DailyReportTotals } from '../../domain/daily-report.js';

export interface DailyReport {
  from: string;
  to: string;
  mode: Mode;
  merchants: Array<{ id: string; name: string }>;
  /** One per merchant and day of the range, every day present. */
  rows: DailyReportRow[];
  totals: DailyReportTotals;
}

/** The rows and totals of these merchants over a range already validated (the daily e-mail's one day). */
export async function reportOf(
  deps: Deps,
  merchants: Array<{ id: string; name: string }>,
  range: ReportRange,
  mode: Mode,
): Promise<DailyReport> {
  const ids = merchants.map((m) => m.id);
  const { from, before } = rangeBounds(range);
  const [received, refunded] = await Promise.all([
    receivedByDay(deps.db, ids, mode, from, before),
    refundedByDay(deps.db, ids, mode, from, before),
  ]);
  const rows = buildDailyRows(range, ids, { received, refunded });
  return {
    from: wibDayText(range.fromDay),
    to: wibDayText(range.toDay),
    mode,
    merchants,
    rows,
    totals: reportTotals(rows),
  };
}
