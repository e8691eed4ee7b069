import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseReportedAmount } from '../../src/domain/reported-amount.js';
import { parseWibDateTime } from '../../src/domain/wib.js';

const limits = { min: 1, max: 10_000_000 };

describe('parseReportedAmount', () => {
  it('reads an integer, its plain digits and any all-zero decimal fraction as the same whole rupiah', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 0, max: 6 }), (n, zeros) => {
        const fraction = zeros === 0 ? '' : `.${'0'.repeat(zeros)}`;
        expect(parseReportedAmount(n, limits)).toEqual({ ok: true, amount: n });
        expect(parseReportedAmount(String(n), limits)).toEqual({ ok: true, amount: n });
        expect(parseReportedAmount(`${n}${fraction}`, limits)).toEqual({ ok: true, amount: n });
      }),
    );
  });

  it('refuses a fraction of a rupiah instead of rounding it, as a string or a number', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 99 }), (n, cents) => {
        const text = `${n}.${String(cents).padStart(2, '0')}`;
        expect(parseReportedAmount(text, limits)).toEqual({ ok: false, reason: 'not_whole_rupiah' });
        expect(parseReportedAmount(Number(text), limits)).toEqual({ ok: false, reason: 'not_whole_rupiah' });
      }),
    );
  });

  it('never accepts an amount outside the limits', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 10_000_001, max: Number.MAX_SAFE_INTEGER }), fc.constant(0)), (n) => {
        expect(parseReportedAmount(n, limits)).toEqual({ ok: false, reason: 'amount_out_of_range' });
        expect(parseReportedAmount(`${n}.00`, limits)).toEqual({ ok: false, reason: 'amount_out_of_range' });
      }),
    );
  });

  it('whatever it is given, accepts only a whole number within the limits that the input spells', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.double(), fc.anything()), (raw) => {
        const parsed = parseReportedAmount(raw, limits);
        if (!parsed.ok) return;
        expect(Number.isSafeInteger(parsed.amount)).toBe(true);
        expect(parsed.amount).toBeGreaterThanOrEqual(limits.min);
        expect(parsed.amount).toBeLessThanOrEqual(limits.max);
        expect(Number(raw)).toBe(parsed.amount);
      }),
    );
  });

  it('refuses separators, signs, exponents and other types', () => {
    for (const raw of [
      '125.021.00',
      '125,021',
      '125021,00',
      '-5',
      '+5',
      '1e5',
      ' ',
      '',
      'Rp5000',
      '5.',
      '.5',
      null,
      undefined,
      true,
      [5],
      { a: 5 },
      Number.NaN,
      -1,
      Number.POSITIVE_INFINITY,
    ]) {
      expect(parseReportedAmount(raw, limits).ok, String(raw)).toBe(false);
    }
    expect(parseReportedAmount('125.021', limits)).toEqual({ ok: false, reason: 'not_whole_rupiah' });
  });
});

describe('parseWibDateTime', () => {
  it('reads a WIB wall-clock time as the instant seven hours earlier in UTC', () => {
    expect(parseWibDateTime('2026-11-28 14:05:00')).toBe(Date.parse('2026-11-28T07:05:00Z'));
    expect(parseWibDateTime('2026-11-28 14:05')).toBe(Date.parse('2026-11-28T07:05:00Z'));
    expect(parseWibDateTime('2026-01-01 03:00:00')).toBe(Date.parse('2025-12-31T20:00:00Z'));
  });

  it('round-trips every instant written as WIB to the second', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.parse('2000-01-01T00:00:00Z'), max: Date.parse('2099-12-31T00:00:00Z') }),
        (ms) => {
          const whole = ms - (ms % 1000);
          const d = new Date(whole + 7 * 3_600_000).toISOString();
          expect(parseWibDateTime(`${d.slice(0, 10)} ${d.slice(11, 19)}`)).toBe(whole);
        },
      ),
    );
  });

  it('refuses dates that do not exist and other shapes', () => {
    for (const raw of [
      '2026-02-30 10:00:00',
      '2026-13-01 10:00:00',
      '2026-11-28 24:00:00',
      '2026-11-28 14:60',
      '28/11/2026 14:05',
      '2026-11-28',
      1764313500,
      null,
    ]) {
      expect(parseWibDateTime(raw), String(raw)).toBeNull();
    }
  });
});
