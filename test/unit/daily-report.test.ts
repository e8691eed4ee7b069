// The daily report's pure rules (domain/daily-report.ts): the range, the WIB days, filling the days
// without activity, the totals, the CSV and the e-mail's outbox key.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildDailyRows,
  checkReportSize,
  monthSoFar,
  parseReportMailKey,
  parseReportRange,
  rangeBounds,
  reportCsv,
  reportMailKey,
  reportTotals,
  wibDayText,
  yesterday,
} from '../../src/domain/daily-report.js';
import { wibDay } from '../../src/domain/wib.js';

const HOUR = 3_600_000;

describe('a report range', () => {
  it('takes two real dates, to not before from, at most 366 days', () => {
    expect(parseReportRange('2026-10-01', '2026-10-31')).toEqual({ fromDay: Date.UTC(2026, 9, 1) / 86_400_000, toDay: Date.UTC(2026, 9, 31) / 86_400_000 });
    expect(() => parseReportRange('2026-10-01', '2026-10-01')).not.toThrow();
    expect(() => parseReportRange('2025-11-01', '2026-11-01')).not.toThrow();
    for (const [from, to, param] of [
      ['2026-10-02', '2026-10-01', 'to'],
      ['2026-02-29', '2026-03-01', 'from'],
      ['2026-10-01', '2026-13-01', 'to'],
      ['1999-12-31', '2000-01-01', 'from'],
      ['26-10-01', '2026-10-01', 'from'],
      ['2026-10-01 ', '2026-10-01', 'from'],
      ['2025-01-01', '2026-01-02', 'to'],
    ] as const) {
      expect(() => parseReportRange(from, to), `${from} ${to}`).toThrowError(expect.objectContaining({ code: 'invalid_parameter', param }));
    }
  });

  it('covers whole WIB days: from 00:00 WIB (17:00 UTC the day before) to the next midnight', () => {
    const { from, before } = rangeBounds(parseReportRange('2026-10-01', '2026-10-02'));
    expect(new Date(from).toISOString()).toBe('2026-09-30T17:00:00.000Z');
    expect(new Date(before).toISOString()).toBe('2026-10-02T17:00:00.000Z');
    expect(wibDay(before - 1)).toBe(wibDay(from) + 1);
  });

  it("defaults to this WIB month so far, and the e-mail's day is yesterday in WIB", () => {
    // 1 November 00:30 WIB is still 31 October in UTC.
    const now = Date.UTC(2026, 9, 31, 17, 30);
    expect(wibDayText(monthSoFar(now).fromDay)).toBe('2026-11-01');
    expect(wibDayText(monthSoFar(now).toDay)).toBe('2026-11-01');
    expect(wibDayText(yesterday(now))).toBe('2026-10-31');
    expect(wibDayText(monthSoFar(Date.UTC(2026, 9, 15, 5)).fromDay)).toBe('2026-10-01');
  });
});

describe('a report size', () => {
  it('is at most 50000 rows, merchants x days', () => {
    const year = parseReportRange('2025-11-01', '2026-10-31');
    expect(() => checkReportSize(136, year)).not.toThrow();
    expect(() => checkReportSize(137, year)).toThrowError(expect.objectContaining({ code: 'invalid_parameter', param: 'merchant' }));
    expect(() => checkReportSize(50_000, parseReportRange('2026-10-01', '2026-10-01'))).not.toThrow();
  });
});

describe('rows and totals', () => {
  const range = parseReportRange('2026-10-01', '2026-10-03');
  const d = (n: number) => range.fromDay + n;

  it('has every day of every merchant, zeros included, and ignores facts outside', () => {
    const rows = buildDailyRows(range, ['m1', 'm2'], {
      paid: [
        { merchant_id: 'm1', day: d(1), source: 'simulator', cashier: null, count: 2, sum: 50_000 },
        { merchant_id: 'm1', day: d(1), source: 'feed', cashier: 'usr_k', count: 1, sum: 10_000 },
        { merchant_id: 'm3', day: d(1), source: 'feed', cashier: null, count: 9, sum: 9 },
        { merchant_id: 'm1', day: d(5), source: 'feed', cashier: null, count: 9, sum: 9 },
      ],
      refunded: [{ merchant_id: 'm2', day: d(2), count: 1, sum: 5_000 }],
      unmatched: [{ merchant_id: 'm1', day: d(0), count: 3, sum: 30_003 }],
    });
    expect(rows.map((r) => `${r.merchant_id} ${r.day}`)).toEqual([
      'm1 2026-10-01',
      'm1 2026-10-02',
      'm1 2026-10-03',
      'm2 2026-10-01',
      'm2 2026-10-02',
      'm2 2026-10-03',
    ]);
    expect(rows[1]).toMatchObject({
      paid_count: 3,
      paid_sum: 60_000,
      by_source: { simulator: { count: 2, sum: 50_000 }, feed: { count: 1, sum: 10_000 } },
      by_cashier: { usr_k: { count: 1, sum: 10_000 } },
    });
    expect(rows[0]).toMatchObject({ paid_count: 0, unmatched_count: 3, unmatched_sum: 30_003 });
    expect(rows[5]).toMatchObject({ refund_count: 1, refunded_sum: 5_000 });
    const totals = reportTotals(rows);
    expect(totals).toMatchObject({ paid_count: 3, paid_sum: 60_000, refunded_sum: 5_000, unmatched_count: 3 });
  });

  it('totals are the sums of the rows, whatever the facts', () => {
    const fact = fc.record({ merchant_id: fc.constantFrom('a', 'b'), day: fc.integer({ min: d(-1), max: d(3) }), count: fc.nat(50), sum: fc.nat(10_000_000) });
    fc.assert(
      fc.property(fc.array(fact), fc.array(fact), fc.array(fact), (paid, refunded, unmatched) => {
        const rows = buildDailyRows(range, ['a', 'b'], { paid: paid.map((p) => ({ ...p, source: 's', cashier: null })), refunded, unmatched });
        const totals = reportTotals(rows);
        expect(rows).toHaveLength(6);
        expect(totals.paid_sum).toBe(rows.reduce((s, r) => s + r.paid_sum, 0));
        expect(totals.refunded_sum).toBe(rows.reduce((s, r) => s + r.refunded_sum, 0));
        expect(totals.unmatched_count).toBe(rows.reduce((s, r) => s + r.unmatched_count, 0));
        const inRange = (f: { day: number }) => f.day >= range.fromDay && f.day <= range.toDay;
        expect(totals.paid_sum).toBe(paid.filter(inRange).reduce((s, f) => s + f.sum, 0));
      }),
    );
  });
});

describe('the CSV and the outbox key', () => {
  it('has a header and one record per row; a source that looks like a formula is text', () => {
    const rows = buildDailyRows(parseReportRange('2026-10-01', '2026-10-01'), ['m1'], {
      paid: [{ merchant_id: 'm1', day: parseReportRange('2026-10-01', '2026-10-01').fromDay, source: '=cmd', cashier: null, count: 1, sum: 25_000 }],
      refunded: [],
      unmatched: [],
    });
    expect(reportCsv(rows)).toBe(
      'day,merchant_id,paid_count,paid_sum,refund_count,refunded_sum,unmatched_count,unmatched_sum,by_source,by_cashier\r\n' +
        "2026-10-01,m1,1,25000,0,0,0,0,'=cmd=1/25000,\r\n",
    );
  });

  it('names the merchant, the day and the owner, and reads back', () => {
    const day = wibDay(Date.UTC(2026, 9, 3, 5) + 7 * HOUR);
    const key = reportMailKey('mch_1', day, 'usr_2');
    expect(key).toBe('report:mch_1:2026-10-03:usr_2');
    expect(parseReportMailKey(key)).toEqual({ merchantId: 'mch_1', day });
    expect(parseReportMailKey('trx_123')).toBeNull();
    expect(parseReportMailKey('report:mch_1:2026-02-30:usr_2')).toBeNull();
  });
});
