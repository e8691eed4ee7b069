import { checkReportSize, parseReportMode, parseReportRange, wibDayText } from '../../domain/daily-report.js';
import { AppError } from '../../domain/errors.js';
import { merchantsInScope } from '../../storage/queries/merchants.js';
import type { Deps } from '../deps.js';
import { reportOf, type DailyReport } from './report-of.js';

export type { DailyReport } from './report-of.js';

export interface DailyReportInput {
  /** YYYY-MM-DD, WIB, both included. */
  from: string;
  to: string;
  /** One merchant; null: every merchant in scope. */
  merchantId: string | null;
  mode: string;
}

/**
 * The daily report of a range of WIB days, for one merchant or every merchant in `scope` (null: every
 * merchant, the operator's view). A merchant outside the scope is merchant_not_found, as an unknown one.
 */
export async function dailyReport(
  deps: Deps,
  scope: readonly string[] | null,
  input: DailyReportInput,
): Promise<DailyReport> {
  const range = parseReportRange(input.from, input.to);
  const mode = parseReportMode(input.mode);
  const all = await merchantsInScope(
    deps.db,
    input.merchantId === null ? scope : (scope ?? [input.merchantId]).filter((id) => id === input.merchantId),
  );
  if (input.merchantId !== null && all.length === 0) {
    throw new AppError('merchant_not_found', `no merchant ${input.merchantId}`, { param: 'merchant' });
  }
  checkReportSize(all.length, range);
  const merchants = all.map((m) => ({ id: m.id, name: m.name }));
  return {
    ...(await reportOf(deps, merchants, range, mode)),
    from: wibDayText(range.fromDay),
    to: wibDayText(range.toDay),
  };
}
