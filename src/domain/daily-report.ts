// The daily report (issue 28, section 3): per merchant and WIB day, what was received, paid back and left
// unassigned. Pure: the range's rules, the shapes, filling in the days without activity, the totals and
// the CSV. Which time decides a figure's day (README "Reports"):
//   paid:      the transaction's paid_at (a late payment after midnight counts on the day it was paid);
//   refunded:  the refund's completed_at, succeeded refunds only (pending and failed ones moved no money);
//   unmatched: the payment's received_at (when the gateway learned of it).
import { csvRow } from './csv.js';
import { AppError } from './errors.js';
import { WIB_OFFSET_MS, wibDay } from './wib.js';

const DAY_MS = 86_400_000;
/** A range longer than this is refused: a year (a leap year's) is the longest an accountant asks for. */
export const MAX_REPORT_DAYS = 366;

/**
 * Rows a report holds at most (merchants x days): an operator's report of every merchant over a year on a
 * gateway with hundreds of merchants would be a page nobody reads and a long read; past it, the asker
 * narrows the range or picks a merchant.
 */
export const MAX_REPORT_ROWS = 50_000;

/** A range of WIB days, both ends included, as days since the epoch in WIB. */
export interface ReportRange {
  fromDay: number;
  toDay: number;
}

/** A count and a sum in rupiah. */
export interface Tally {
  count: number;
  sum: number;
}

/** One merchant's figures of one WIB day. */
export interface DailyReportRow {
  merchant_id: string;
  /** The WIB date, YYYY-MM-DD. */
  day: string;
  paid_count: number;
  /** The sum of amount_paid of the transactions paid that day: what was actually received. */
  paid_sum: number;
  refund_count: number;
  refunded_sum: number;
  unmatched_count: number;
  unmatched_sum: number;
  /** Paid transactions by the payment source of the payment that paid them. */
  by_source: Record<string, Tally>;
  /** Paid transactions sold by a cashier at the point of sale, by the cashier's user id (others are absent). */
  by_cashier: Record<string, Tally>;
}

export type DailyReportTotals = Omit<DailyReportRow, 'merchant_id' | 'day'>;

/** What storage counts, grouped by merchant and WIB day (days since the epoch in WIB). */
export interface DayFacts {
  paid: Array<{ merchant_id: string; day: number; source: string | null; cashier: string | null; count: number; sum: number }>;
  refunded: Array<{ merchant_id: string; day: number; count: number; sum: number }>;
  unmatched: Array<{ merchant_id: string; day: number; count: number; sum: number }>;
}

/** Days since the epoch (WIB) of a YYYY-MM-DD date; null for anything that is not a real date from 2000 on. */
export function parseWibDate(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const utc = Date.UTC(y, mo - 1, d);
  const check = new Date(utc);
  if (y < 2000 || y > 9999 || check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return null;
  return utc / DAY_MS;
}

/** The YYYY-MM-DD of a WIB day number. */
export function wibDayText(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** The epoch ms at which a WIB day starts. */
export function wibDayStartMs(day: number): number {
  return day * DAY_MS - WIB_OFFSET_MS;
}

/** The instants a range covers: [start of `fromDay`, start of the day after `toDay`). */
export function rangeBounds(range: ReportRange): { from: number; before: number } {
  return { from: wibDayStartMs(range.fromDay), before: wibDayStartMs(range.toDay + 1) };
}

/** Validates `from` and `to` (YYYY-MM-DD, to >= from, at most MAX_REPORT_DAYS days); invalid_parameter otherwise. */
export function parseReportRange(from: string, to: string): ReportRange {
  const fromDay = parseWibDate(from);
  if (fromDay === null) throw new AppError('invalid_parameter', 'from must be a date YYYY-MM-DD', { param: 'from' });
  const toDay = parseWibDate(to);
  if (toDay === null) throw new AppError('invalid_parameter', 'to must be a date YYYY-MM-DD', { param: 'to' });
  if (toDay < fromDay) throw new AppError('invalid_parameter', 'to must not be before from', { param: 'to' });
  if (toDay - fromDay + 1 > MAX_REPORT_DAYS) {
    throw new AppError('invalid_parameter', `a report covers at most ${MAX_REPORT_DAYS} days`, { param: 'to' });
  }
  return { fromDay, toDay };
}

/** Refuses (invalid_parameter) a report of more than MAX_REPORT_ROWS rows. */
export function checkReportSize(merchants: number, range: ReportRange): void {
  if (merchants * (range.toDay - range.fromDay + 1) > MAX_REPORT_ROWS) {
    throw new AppError('invalid_parameter', `a report holds at most ${MAX_REPORT_ROWS} rows (merchants x days): pick a merchant or fewer days`, {
      param: 'merchant',
    });
  }
}

/** The console's default range: the WIB month of `now`, from its first day to today. */
export function monthSoFar(now: number): ReportRange {
  const today = wibDay(now);
  const first = Date.UTC(new Date(today * DAY_MS).getUTCFullYear(), new Date(today * DAY_MS).getUTCMonth(), 1) / DAY_MS;
  return { fromDay: first, toDay: today };
}

/** The WIB day before the one holding `now` (the day a daily e-mail reports). */
export function yesterday(now: number): number {
  return wibDay(now) - 1;
}

/** Nothing counted yet: a day without figures, and where the totals start. */
function zeroFigures(): DailyReportTotals {
  return { paid_count: 0, paid_sum: 0, refund_count: 0, refunded_sum: 0, unmatched_count: 0, unmatched_sum: 0, by_source: {}, by_cashier: {} };
}

function emptyRow(merchantId: string, day: number): DailyReportRow {
  return { merchant_id: merchantId, day: wibDayText(day), ...zeroFigures() };
}

function addTo(tallies: Record<string, Tally>, key: string, count: number, sum: number): void {
  const t = tallies[key] ?? { count: 0, sum: 0 };
  tallies[key] = { count: t.count + count, sum: t.sum + sum };
}

/**
 * One row per merchant and day of the range, every day present (zeros on a day without activity), in
 * the order merchants are given, then by day. Facts of other merchants or outside the range are ignored.
 */
export function buildDailyRows(range: ReportRange, merchantIds: readonly string[], facts: DayFacts): DailyReportRow[] {
  const rows = new Map<string, DailyReportRow>();
  const ordered: DailyReportRow[] = [];
  for (const merchantId of merchantIds) {
    for (let day = range.fromDay; day <= range.toDay; day++) {
      const row = emptyRow(merchantId, day);
      rows.set(`${merchantId}\n${day}`, row);
      ordered.push(row);
    }
  }
  const at = (merchantId: string, day: number) => rows.get(`${merchantId}\n${day}`);
  for (const f of facts.paid) {
    const row = at(f.merchant_id, f.day);
    if (!row) continue;
    row.paid_count += f.count;
    row.paid_sum += f.sum;
    addTo(row.by_source, f.source ?? 'unknown', f.count, f.sum);
    if (f.cashier !== null) addTo(row.by_cashier, f.cashier, f.count, f.sum);
  }
  for (const f of facts.refunded) {
    const row = at(f.merchant_id, f.day);
    if (!row) continue;
    row.refund_count += f.count;
    row.refunded_sum += f.sum;
  }
  for (const f of facts.unmatched) {
    const row = at(f.merchant_id, f.day);
    if (!row) continue;
    row.unmatched_count += f.count;
    row.unmatched_sum += f.sum;
  }
  return ordered;
}

/** The sums of the rows (their breakdowns too). */
export function reportTotals(rows: readonly DailyReportRow[]): DailyReportTotals {
  const totals = zeroFigures();
  for (const row of rows) {
    totals.paid_count += row.paid_count;
    totals.paid_sum += row.paid_sum;
    totals.refund_count += row.refund_count;
    totals.refunded_sum += row.refunded_sum;
    totals.unmatched_count += row.unmatched_count;
    totals.unmatched_sum += row.unmatched_sum;
    for (const [k, t] of Object.entries(row.by_source)) addTo(totals.by_source, k, t.count, t.sum);
    for (const [k, t] of Object.entries(row.by_cashier)) addTo(totals.by_cashier, k, t.count, t.sum);
  }
  return totals;
}

export const REPORT_CSV_COLUMNS = [
  'day',
  'merchant_id',
  'paid_count',
  'paid_sum',
  'refund_count',
  'refunded_sum',
  'unmatched_count',
  'unmatched_sum',
  'by_source',
  'by_cashier',
] as const;

/** A breakdown in one cell: "snap=2/50000;static=1/25000" (key=count/sum, keys sorted). */
function breakdownCell(tallies: Record<string, Tally>): string {
  return Object.keys(tallies)
    .sort()
    .map((k) => `${k}=${tallies[k]!.count}/${tallies[k]!.sum}`)
    .join(';');
}

/** The rows as CSV (header first, one record per merchant and day, no totals row: every record is a day). */
export function reportCsv(rows: readonly DailyReportRow[]): string {
  return (
    csvRow(REPORT_CSV_COLUMNS) +
    rows
      .map((r) =>
        csvRow([
          r.day,
          r.merchant_id,
          r.paid_count,
          r.paid_sum,
          r.refund_count,
          r.refunded_sum,
          r.unmatched_count,
          r.unmatched_sum,
          breakdownCell(r.by_source),
          breakdownCell(r.by_cashier),
        ]),
      )
      .join('')
  );
}

/**
 * What a daily report e-mail's outbox row holds where an invoice's holds its transaction id: the
 * merchant, the day and the owner it goes to. The outbox's unique (transaction_id, kind) then makes each
 * owner's mail of a day exist once, whichever instance queues it.
 */
export function reportMailKey(merchantId: string, day: number, userId: string): string {
  return `report:${merchantId}:${wibDayText(day)}:${userId}`;
}

/** The merchant and day of a report mail's key; null for anything else. */
export function parseReportMailKey(key: string): { merchantId: string; day: number } | null {
  const m = /^report:([^:]+):(\d{4}-\d{2}-\d{2}):[^:]+$/.exec(key);
  if (!m) return null;
  const day = parseWibDate(m[2]!);
  return day === null ? null : { merchantId: m[1]!, day };
}
