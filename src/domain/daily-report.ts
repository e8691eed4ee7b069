// The daily report (issue 28, section 3; issue 37, section 2): per merchant and WIB day, what was
// received, paid back and left unassigned. Pure: the range's rules, the shapes, filling in the days
// without activity, the totals and the CSV.
//
// Every rupiah received is in exactly one figure. The money received on a day is the payments the
// gateway received that day (payments.received_at), less another source's report of a payment already
// counted (reason `reported_by_another_source`: the same money seen twice, never new money). Each such
// payment is, as it stands when the report is asked, in exactly one of:
//   paid:          bound to a transaction that is paid (its one payment, or any of its parts, including
//                  the parts of one accepted with what it received: each part on the day it was received);
//   received_open: bound to a transaction that is not paid: kept open for the rest, or expired or
//                  cancelled after a part payment (the money was received and is still the transaction's
//                  until a person completes it, accepts it or pays it back outside the gateway);
//   returned:      unmatched and paid back to the payer (a double payment's refund, "Catat pengembalian");
//   unmatched:     unmatched and not paid back (a double payment not refunded yet included).
// So received = paid + received_open + unmatched + returned, counts and sums, on every row and in the
// totals; the counts are of payments (a transaction paid in two parts counts twice, once on each day a
// part arrived). All four are by the payment's received_at, the gateway's own clock, so a payment never
// moves to another day when its transaction is completed or accepted later; it moves between figures.
// Apart from them, refunded: the transaction refunds that succeeded that day (completed_at; pending and
// failed ones moved no money), money given back out of paid transactions; a double payment's refund is
// `returned`, not here, so no rupiah is in two figures.
import { csvRow } from './csv.js';
import { AppError } from './errors.js';
import { WIB_OFFSET_MS, wibDay } from './wib.js';
import type { Mode } from './records.js';

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
  /** Payments received that day that are bound to a paid transaction, and the sum of their amounts. */
  paid_count: number;
  paid_sum: number;
  /** Transaction refunds that succeeded that day (a double payment's refund is `returned`). */
  refund_count: number;
  refunded_sum: number;
  /** Payments received that day still unmatched and not paid back. */
  unmatched_count: number;
  unmatched_sum: number;
  /** Payments received that day bound to a transaction not paid (kept open, or expired or cancelled after a part). */
  received_open_count: number;
  received_open_sum: number;
  /** Payments received that day, unmatched, that were paid back to the payer (refunded double payments). */
  returned_count: number;
  returned_sum: number;
  /** Every payment received that day (another source's report of one excepted): paid + received_open + unmatched + returned. */
  received_count: number;
  received_sum: number;
  /** The paid figures by the payment source of each payment. */
  by_source: Record<string, Tally>;
  /** The paid figures of sales by a cashier at the point of sale, by the cashier's user id (others are absent). */
  by_cashier: Record<string, Tally>;
}

export type DailyReportTotals = Omit<DailyReportRow, 'merchant_id' | 'day'>;

/** Which figure a payment received is in (see the header). */
export type ReceivedKind = 'paid' | 'received_open' | 'unmatched' | 'returned';
export const RECEIVED_KINDS: readonly ReceivedKind[] = ['paid', 'received_open', 'unmatched', 'returned'];

/** What storage counts, grouped by merchant and WIB day (days since the epoch in WIB). */
export interface DayFacts {
  /**
   * The payments received, another source's reports excepted, by the day they were received, their kind,
   * their source and the cashier who sold their transaction (null: none, or no transaction).
   */
  received: Array<{
    merchant_id: string;
    day: number;
    kind: ReceivedKind;
    source: string | null;
    cashier: string | null;
    count: number;
    sum: number;
  }>;
  /** Transaction refunds that succeeded, by the day they did. */
  refunded: Array<{ merchant_id: string; day: number; count: number; sum: number }>;
}

/** Days since the epoch (WIB) of a YYYY-MM-DD date; null for anything that is not a real date from 2000 on. */
export function parseWibDate(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const utc = Date.UTC(y, mo - 1, d);
  const check = new Date(utc);
  if (
    y < 2000 ||
    y > 9999 ||
    check.getUTCFullYear() !== y ||
    check.getUTCMonth() !== mo - 1 ||
    check.getUTCDate() !== d
  )
    return null;
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
    throw new AppError(
      'invalid_parameter',
      `a report holds at most ${MAX_REPORT_ROWS} rows (merchants x days): pick a merchant or fewer days`,
      {
        param: 'merchant',
      },
    );
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

/** The count and sum fields of a row, every one of them (the breakdowns aside). */
export const FIGURE_KEYS = [
  'paid_count',
  'paid_sum',
  'refund_count',
  'refunded_sum',
  'unmatched_count',
  'unmatched_sum',
  'received_open_count',
  'received_open_sum',
  'returned_count',
  'returned_sum',
  'received_count',
  'received_sum',
] as const satisfies ReadonlyArray<keyof DailyReportTotals>;

export type FigureKey = (typeof FIGURE_KEYS)[number];

type NumberFields = {
  [K in keyof DailyReportTotals]: DailyReportTotals[K] extends number ? K : never;
}[keyof DailyReportTotals];
/** Compiles only while FIGURE_KEYS names every number field of a row (the totals and the folding use it). */
const everyFigureListed: [Exclude<NumberFields, FigureKey>] extends [never] ? true : never = true;
void everyFigureListed;

/** Nothing counted yet: a day without figures, and where the totals start. */
export function zeroFigures(): DailyReportTotals {
  const figures = Object.fromEntries(FIGURE_KEYS.map((key) => [key, 0])) as Record<FigureKey, number>;
  return { ...figures, by_source: {}, by_cashier: {} };
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
  for (const f of facts.received) {
    const row = at(f.merchant_id, f.day);
    if (!row) continue;
    // Each payment in its one figure, and in the money received.
    row[`${f.kind}_count`] += f.count;
    row[`${f.kind}_sum`] += f.sum;
    row.received_count += f.count;
    row.received_sum += f.sum;
    if (f.kind !== 'paid') continue;
    addTo(row.by_source, f.source ?? 'unknown', f.count, f.sum);
    if (f.cashier !== null) addTo(row.by_cashier, f.cashier, f.count, f.sum);
  }
  for (const f of facts.refunded) {
    const row = at(f.merchant_id, f.day);
    if (!row) continue;
    row.refund_count += f.count;
    row.refunded_sum += f.sum;
  }
  return ordered;
}

/** The sums of the rows (their breakdowns too). */
export function reportTotals(rows: readonly DailyReportRow[]): DailyReportTotals {
  const totals = zeroFigures();
  for (const row of rows) {
    for (const key of FIGURE_KEYS) totals[key] += row[key];
    for (const [k, t] of Object.entries(row.by_source)) addTo(totals.by_source, k, t.count, t.sum);
    for (const [k, t] of Object.entries(row.by_cashier)) addTo(totals.by_cashier, k, t.count, t.sum);
  }
  return totals;
}

/** A breakdown in one cell: "snap=2/50000;static=1/25000" (key=count/sum, keys sorted). */
function breakdownCell(tallies: Record<string, Tally>): string {
  return Object.keys(tallies)
    .sort()
    .map((k) => `${k}=${tallies[k]!.count}/${tallies[k]!.sum}`)
    .join(';');
}

const figure = (key: FigureKey) => [key, (r: DailyReportRow) => r[key]] as const;

/** The CSV's columns in order, each with its cell: the one place a column is named and filled. */
const CSV_COLUMNS: ReadonlyArray<readonly [string, (r: DailyReportRow) => string | number]> = [
  ['day', (r) => r.day],
  ['merchant_id', (r) => r.merchant_id],
  figure('paid_count'),
  figure('paid_sum'),
  figure('refund_count'),
  figure('refunded_sum'),
  figure('unmatched_count'),
  figure('unmatched_sum'),
  ['by_source', (r) => breakdownCell(r.by_source)],
  ['by_cashier', (r) => breakdownCell(r.by_cashier)],
  // Issue 37: appended, so the columns before keep their places in a merchant's spreadsheet.
  figure('received_open_count'),
  figure('received_open_sum'),
  figure('returned_count'),
  figure('returned_sum'),
  figure('received_count'),
  figure('received_sum'),
];

export const REPORT_CSV_COLUMNS: readonly string[] = CSV_COLUMNS.map(([name]) => name);

/** The rows as CSV (header first, one record per merchant and day, no totals row: every record is a day). */
export function reportCsv(rows: readonly DailyReportRow[]): string {
  return csvRow(REPORT_CSV_COLUMNS) + rows.map((r) => csvRow(CSV_COLUMNS.map(([, cell]) => cell(r)))).join('');
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

/** A line of the report as a page shows it: a day with figures, or a run of days with none. */
export type ReportLine =
  | { kind: 'day'; row: DailyReportRow }
  | { kind: 'empty'; merchant_id: string; from: string; to: string; days: number };

/** Nothing was received or refunded that day: every figure is 0. */
function isEmptyDay(row: DailyReportRow): boolean {
  return FIGURE_KEYS.every((key) => row[key] === 0);
}

/**
 * The rows with each run of consecutive empty days of one merchant folded into one line (issue 37, section
 * 8): a month begun with one sale is three lines, not thirty cards on a phone. Order is kept; the CSV keeps
 * every day.
 */
export function foldEmptyDays(rows: readonly DailyReportRow[]): ReportLine[] {
  const lines: ReportLine[] = [];
  for (const row of rows) {
    const last = lines.at(-1);
    if (!isEmptyDay(row)) lines.push({ kind: 'day', row });
    else if (last?.kind === 'empty' && last.merchant_id === row.merchant_id) {
      last.to = row.day;
      last.days += 1;
    } else lines.push({ kind: 'empty', merchant_id: row.merchant_id, from: row.day, to: row.day, days: 1 });
  }
  return lines;
}

/** The mode a report asks for: live unless told otherwise; anything else is invalid_parameter. */
export function parseReportMode(raw: string | undefined | null): Mode {
  if (raw === undefined || raw === null || raw === '' || raw === 'live') return 'live';
  if (raw === 'test') return 'test';
  throw new AppError('invalid_parameter', 'mode must be live or test', { param: 'mode' });
}
