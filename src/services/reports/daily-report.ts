import {
  buildDailyRows,
  checkReportSize,
  parseReportRange,
  rangeBounds,
  reportTotals,
  wibDayText,
  type DailyReportRow,
  type DailyReportTotals,
  type ReportRange,
} from '../../domain/daily-report.js';
import { AppError } from '../../domain/errors.js';
import type { Mode } from '../../domain/records.js';
import { merchantsInScope } from '../../storage/queries/merchants.js';
import { emailsOfUsers, receivedByDay, refundedByDay } from '../../storage/queries/reports.js';
import type { Deps } from '../deps.js';

export interface DailyReportInput {
  /** YYYY-MM-DD, WIB, both included. */
  from: string;
  to: string;
  /** One merchant; null: every merchant in scope. */
  merchantId: string | null;
  mode: string;
}

export interface DailyReport {
  from: string;
  to: string;
  mode: Mode;
  merchants: Array<{ id: string; name: string }>;
  /** One per merchant and day of the range, every day present. */
  rows: DailyReportRow[];
  totals: DailyReportTotals;
}

/** The mode a report asks for: live unless told otherwise; anything else is invalid_parameter. */
export function parseReportMode(raw: string | undefined | null): Mode {
  if (raw === undefined || raw === null || raw === '' || raw === 'live') return 'live';
  if (raw === 'test') return 'test';
  throw new AppError('invalid_parameter', 'mode must be live or test', { param: 'mode' });
}

/**
 * The daily report of a range of WIB days, for one merchant or every merchant in `scope` (null: every
 * merchant, the operator's view). A merchant outside the scope is merchant_not_found, as an unknown one.
 */
export async function dailyReport(deps: Deps, scope: readonly string[] | null, input: DailyReportInput): Promise<DailyReport> {
  const range = parseReportRange(input.from, input.to);
  const mode = parseReportMode(input.mode);
  const all = await merchantsInScope(deps.db, input.merchantId === null ? scope : (scope ?? [input.merchantId]).filter((id) => id === input.merchantId));
  if (input.merchantId !== null && all.length === 0) {
    throw new AppError('merchant_not_found', `no merchant ${input.merchantId}`, { param: 'merchant' });
  }
  checkReportSize(all.length, range);
  const merchants = all.map((m) => ({ id: m.id, name: m.name }));
  return { ...(await reportOf(deps, merchants, range, mode)), from: wibDayText(range.fromDay), to: wibDayText(range.toDay) };
}

/** The rows and totals of these merchants over a range already validated (the daily e-mail's one day). */
export async function reportOf(deps: Deps, merchants: Array<{ id: string; name: string }>, range: ReportRange, mode: Mode): Promise<DailyReport> {
  const ids = merchants.map((m) => m.id);
  const { from, before } = rangeBounds(range);
  const [received, refunded] = await Promise.all([receivedByDay(deps.db, ids, mode, from, before), refundedByDay(deps.db, ids, mode, from, before)]);
  const rows = buildDailyRows(range, ids, { received, refunded });
  return { from: wibDayText(range.fromDay), to: wibDayText(range.toDay), mode, merchants, rows, totals: reportTotals(rows) };
}

/** The addresses of the cashiers a report's by_cashier names (the console shows them instead of ids). */
export function cashierEmails(deps: Deps, userIds: readonly string[]): Promise<Map<string, string>> {
  return emailsOfUsers(deps.db, userIds);
}
