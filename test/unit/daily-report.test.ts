// The daily report's pure rules (domain/daily-report.ts): the range, the WIB days, filling the days
// without activity, the totals (every rupiah received in exactly one figure), the CSV and the e-mail's
// outbox key.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildDailyRows,
  checkReportSize,
  type DailyReportRow,
  FIGURE_KEYS,
  REPORT_CSV_COLUMNS,
  foldEmptyDays,
  monthSoFar,
  parseReportMailKey,
  parseReportRange,
  RECEIVED_KINDS,
  rangeBounds,
  reportCsv,
  reportMailKey,
  reportTotals,
  wibDayText,
  yesterday,
  zeroFigures,
} from '../../src/domain/daily-report.js';
import { wibDay } from '../../src/domain/wib.js';

const HOUR = 3_600_000;

describe('a report range', () => {
  it('takes two real dates, to not before from, at most 366 days', () => {
    expect(parseReportRange('2026-10-01', '2026-10-31')).toEqual({
      fromDay: Date.UTC(2026, 9, 1) / 86_400_000,
      toDay: Date.UTC(2026, 9, 31) / 86_400_000,
    });
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
      expect(() => parseReportRange(from, to), `${from} ${to}`).toThrowError(
        expect.objectContaining({ code: 'invalid_parameter', param }),
      );
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
    expect(() => checkReportSize(137, year)).toThrowError(
      expect.objectContaining({ code: 'invalid_parameter', param: 'merchant' }),
    );
    expect(() => checkReportSize(50_000, parseReportRange('2026-10-01', '2026-10-01'))).not.toThrow();
  });
});

describe('rows and totals', () => {
  const range = parseReportRange('2026-10-01', '2026-10-03');
  const d = (n: number) => range.fromDay + n;

  it('has every day of every merchant, zeros included, and ignores facts outside', () => {
    const rows = buildDailyRows(range, ['m1', 'm2'], {
      received: [
        { merchant_id: 'm1', day: d(1), kind: 'paid', source: 'simulator', cashier: null, count: 2, sum: 50_000 },
        { merchant_id: 'm1', day: d(1), kind: 'paid', source: 'feed', cashier: 'usr_k', count: 1, sum: 10_000 },
        { merchant_id: 'm3', day: d(1), kind: 'paid', source: 'feed', cashier: null, count: 9, sum: 9 },
        { merchant_id: 'm1', day: d(5), kind: 'paid', source: 'feed', cashier: null, count: 9, sum: 9 },
        { merchant_id: 'm1', day: d(0), kind: 'unmatched', source: 'feed', cashier: null, count: 3, sum: 30_003 },
        // Not paid: in their own figures and in the money received, never in the breakdowns.
        { merchant_id: 'm1', day: d(1), kind: 'received_open', source: 'feed', cashier: 'usr_k', count: 1, sum: 7_000 },
        { merchant_id: 'm1', day: d(1), kind: 'returned', source: 'simulator', cashier: null, count: 1, sum: 25_000 },
      ],
      refunded: [{ merchant_id: 'm2', day: d(2), count: 1, sum: 5_000 }],
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
      received_open_count: 1,
      received_open_sum: 7_000,
      returned_count: 1,
      returned_sum: 25_000,
      received_count: 5,
      received_sum: 92_000,
      by_source: { simulator: { count: 2, sum: 50_000 }, feed: { count: 1, sum: 10_000 } },
      by_cashier: { usr_k: { count: 1, sum: 10_000 } },
    });
    expect(rows[0]).toMatchObject({
      paid_count: 0,
      unmatched_count: 3,
      unmatched_sum: 30_003,
      received_count: 3,
      received_sum: 30_003,
    });
    // A refund is money given back, not received.
    expect(rows[5]).toMatchObject({ refund_count: 1, refunded_sum: 5_000, received_sum: 0 });
    const totals = reportTotals(rows);
    expect(totals).toMatchObject({
      paid_count: 3,
      paid_sum: 60_000,
      refunded_sum: 5_000,
      unmatched_count: 3,
      received_open_sum: 7_000,
      returned_sum: 25_000,
      received_count: 8,
      received_sum: 122_003,
    });
  });

  it('totals are the sums of the rows, whatever the facts', () => {
    const fact = fc.record({
      merchant_id: fc.constantFrom('a', 'b'),
      day: fc.integer({ min: d(-1), max: d(3) }),
      count: fc.nat(50),
      sum: fc.nat(10_000_000),
    });
    const receivedFact = fc.record({
      merchant_id: fc.constantFrom('a', 'b'),
      day: fc.integer({ min: d(-1), max: d(3) }),
      kind: fc.constantFrom(...RECEIVED_KINDS),
      source: fc.constantFrom('s', 't', null),
      cashier: fc.constantFrom('usr_k', null),
      count: fc.nat(50),
      sum: fc.nat(10_000_000),
    });
    fc.assert(
      fc.property(fc.array(receivedFact), fc.array(fact), (received, refunded) => {
        const rows = buildDailyRows(range, ['a', 'b'], { received, refunded });
        const totals = reportTotals(rows);
        expect(rows).toHaveLength(6);
        for (const key of FIGURE_KEYS) expect(totals[key], key).toBe(rows.reduce((s, r) => s + r[key], 0));
        const inRange = (f: { day: number }) => f.day >= range.fromDay && f.day <= range.toDay;
        const of = (kind: string) =>
          received.filter((f) => inRange(f) && f.kind === kind).reduce((s, f) => s + f.sum, 0);
        expect(totals.paid_sum).toBe(of('paid'));
        expect(totals.returned_sum).toBe(of('returned'));
        expect(totals.received_sum).toBe(received.filter(inRange).reduce((s, f) => s + f.sum, 0));
        // Every rupiah received is in exactly one of the four figures, on every row and in the totals.
        for (const r of [...rows, totals]) {
          expect(r.paid_sum + r.received_open_sum + r.unmatched_sum + r.returned_sum).toBe(r.received_sum);
          expect(r.paid_count + r.received_open_count + r.unmatched_count + r.returned_count).toBe(r.received_count);
          expect(Object.values(r.by_source).reduce((s, x) => s + x.sum, 0)).toBe(r.paid_sum);
        }
      }),
    );
  });
});

describe('the CSV and the outbox key', () => {
  it('has a header and one record per row; a source that looks like a formula is text', () => {
    const day = parseReportRange('2026-10-01', '2026-10-01').fromDay;
    const rows = buildDailyRows(parseReportRange('2026-10-01', '2026-10-01'), ['m1'], {
      received: [
        { merchant_id: 'm1', day, kind: 'paid', source: '=cmd', cashier: null, count: 1, sum: 25_000 },
        { merchant_id: 'm1', day, kind: 'received_open', source: 'feed', cashier: null, count: 1, sum: 4_000 },
        { merchant_id: 'm1', day, kind: 'returned', source: 'feed', cashier: null, count: 1, sum: 30_000 },
      ],
      refunded: [],
    });
    // The columns of issue 37 come after the ones before, which keep their places.
    expect(reportCsv(rows)).toBe(
      'day,merchant_id,paid_count,paid_sum,refund_count,refunded_sum,unmatched_count,unmatched_sum,by_source,by_cashier,' +
        'received_open_count,received_open_sum,returned_count,returned_sum,received_count,received_sum\r\n' +
        "2026-10-01,m1,1,25000,0,0,0,0,'=cmd=1/25000,,1,4000,1,30000,3,59000\r\n",
    );
  });

  it('has a column for every figure of a row', () => {
    for (const key of FIGURE_KEYS) expect(REPORT_CSV_COLUMNS, key).toContain(key);
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

describe('folding empty days (issue 37, section 8)', () => {
  const row = (merchant: string, day: string, paid: number): DailyReportRow => ({
    ...zeroFigures(),
    merchant_id: merchant,
    day,
    paid_count: paid > 0 ? 1 : 0,
    paid_sum: paid,
  });

  it('folds each run of one merchant’s empty days into one line, keeping days with figures and the order', () => {
    const rows = [
      row('a', '2026-10-01', 0),
      row('a', '2026-10-02', 0),
      row('a', '2026-10-03', 500),
      row('a', '2026-10-04', 0),
      row('b', '2026-10-01', 0),
    ];
    expect(foldEmptyDays(rows)).toEqual([
      { kind: 'empty', merchant_id: 'a', from: '2026-10-01', to: '2026-10-02', days: 2 },
      { kind: 'day', row: rows[2] },
      { kind: 'empty', merchant_id: 'a', from: '2026-10-04', to: '2026-10-04', days: 1 },
      { kind: 'empty', merchant_id: 'b', from: '2026-10-01', to: '2026-10-01', days: 1 },
    ]);
    // A refund or an unmatched payment alone makes a day worth its own line.
    expect(foldEmptyDays([{ ...row('a', '2026-10-01', 0), refund_count: 1, refunded_sum: 100 }])[0]!.kind).toBe('day');
    expect(foldEmptyDays([{ ...row('a', '2026-10-01', 0), unmatched_count: 1, unmatched_sum: 100 }])[0]!.kind).toBe(
      'day',
    );
    // So does money received on a transaction kept open, or a double payment paid back (issue 37).
    expect(
      foldEmptyDays([
        {
          ...row('a', '2026-10-01', 0),
          received_open_count: 1,
          received_open_sum: 100,
          received_count: 1,
          received_sum: 100,
        },
      ])[0]!.kind,
    ).toBe('day');
    expect(
      foldEmptyDays([
        { ...row('a', '2026-10-01', 0), returned_count: 1, returned_sum: 100, received_count: 1, received_sum: 100 },
      ])[0]!.kind,
    ).toBe('day');
    // Each figure alone.
    for (const key of FIGURE_KEYS)
      expect(foldEmptyDays([{ ...row('a', '2026-10-01', 0), [key]: 1 }])[0]!.kind, key).toBe('day');
  });

  it('loses no day: the folded lines count every row, and no two empty lines of one merchant touch', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b'), fc.boolean()), { maxLength: 60 }), (spec) => {
        const rows = spec.map(([merchant, paid], i) =>
          row(merchant, `2026-10-${String((i % 28) + 1).padStart(2, '0')}`, paid ? 1000 : 0),
        );
        const lines = foldEmptyDays(rows);
        expect(lines.reduce((n, l) => n + (l.kind === 'day' ? 1 : l.days), 0)).toBe(rows.length);
        expect(lines.filter((l) => l.kind === 'day').map((l) => (l.kind === 'day' ? l.row : null))).toEqual(
          rows.filter((r) => r.paid_sum > 0),
        );
        for (let i = 1; i < lines.length; i++) {
          const [a, b] = [lines[i - 1]!, lines[i]!];
          expect(a.kind === 'empty' && b.kind === 'empty' && a.merchant_id === b.merchant_id).toBe(false);
        }
      }),
    );
  });
});
