import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { formatRupiah, MAX_QRIS_AMOUNT, parseAmount } from '../../src/domain/money.js';

const LIMITS = { min: 1, max: MAX_QRIS_AMOUNT };

function errorOf(raw: unknown, limits = LIMITS, param?: string): AppError {
  try {
    parseAmount(raw, limits, param);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error(`expected parseAmount(${String(raw)}) to throw`);
}

describe('parseAmount accepts', () => {
  it.each<[unknown, number]>([
    ['10000', 10000],
    ['10000.00', 10000],
    ['0100', 100],
    ['0100.00', 100],
    ['1', 1],
    [10000, 10000],
    ['10000000', MAX_QRIS_AMOUNT],
    ['0000000000000000000000000042', 42], // leading zeros do not count towards the digit limit
  ])('%j -> %d', (raw, expected) => {
    expect(parseAmount(raw, LIMITS)).toBe(expected);
  });
});

describe('parseAmount rejects', () => {
  it.each<[unknown, string, RegExp]>([
    [undefined, 'amount_required', /required/],
    [null, 'amount_required', /required/],
    ['', 'amount_required', /required/],
    ['-1', 'invalid_amount', /negative/],
    ['+1', 'invalid_amount', /sign/],
    ['1e4', 'invalid_amount', /exponent/],
    ['1E4', 'invalid_amount', /exponent/],
    ['1,000', 'invalid_amount', /','/],
    ['10,50', 'invalid_amount', /','/],
    ['1.000', 'invalid_amount', /thousands separator/],
    ['10.000', 'invalid_amount', /thousands separator/],
    ['1.000.000', 'invalid_amount', /thousands separator/],
    ['10 000', 'invalid_amount', /spaces/],
    [' 100', 'invalid_amount', /spaces/],
    ['100 ', 'invalid_amount', /spaces/],
    ['100\n', 'invalid_amount', /control/],
    ['10.5', 'invalid_amount', /\.00/],
    ['10.0', 'invalid_amount', /\.00/],
    ['10.000000', 'invalid_amount', /\.00/],
    ['10.', 'invalid_amount', /misplaced/],
    ['.5', 'invalid_amount', /misplaced/],
    ['abc', 'invalid_amount', /only digits/],
    ['0x10', 'invalid_amount', /only digits/],
    ['Rp10000', 'invalid_amount', /only digits/],
    ['１００', 'invalid_amount', /ASCII digits/],
    ['١٠٠', 'invalid_amount', /ASCII digits/],
    ['100\u00a0000', 'invalid_amount', /spaces/],
    ['100€', 'invalid_amount', /non-ASCII/],
    ['9999999999999999999999', 'amount_out_of_range', /larger than the maximum of Rp10\.000\.000/],
    ['9999999999999999', 'amount_out_of_range', /larger than the maximum/],
    [['1', '2'], 'invalid_amount', /single value/],
    [[], 'invalid_amount', /single value/],
    [true, 'invalid_amount', /boolean/],
    [{}, 'invalid_amount', /object/],
    [1.5, 'invalid_amount', /whole rupiah/],
    [NaN, 'invalid_amount', /NaN/],
    [Infinity, 'invalid_amount', /finite/],
    [-Infinity, 'invalid_amount', /finite/],
    [-0, 'invalid_amount', /negative/],
    [-5, 'invalid_amount', /negative/],
    [1e20, 'amount_out_of_range', /larger than the maximum/],
  ])('%j -> %s', (raw, code, message) => {
    const err = errorOf(raw);
    expect(err.code).toBe(code);
    expect(err.param).toBe('amount');
    expect(err.message).toMatch(message);
  });

  it('rejects a bigint (JSON never produces one)', () => {
    expect(errorOf(10n).code).toBe('invalid_amount');
  });

  it('uses the given param name', () => {
    const err = errorOf('x', LIMITS, 'min_amount');
    expect(err.param).toBe('min_amount');
    expect(err.message).toMatch(/^min_amount /);
  });
});

describe('parseAmount range', () => {
  it('accepts the bounds and rejects just outside them', () => {
    const limits = { min: 1000, max: MAX_QRIS_AMOUNT };
    expect(parseAmount('1000', limits)).toBe(1000);
    expect(parseAmount(MAX_QRIS_AMOUNT, limits)).toBe(MAX_QRIS_AMOUNT);
    for (const raw of ['999', 999, '0', 0, String(MAX_QRIS_AMOUNT + 1), MAX_QRIS_AMOUNT + 1]) {
      const err = errorOf(raw, limits);
      expect(err.code).toBe('amount_out_of_range');
      expect(err.message).toBe('amount must be between Rp1.000 and Rp10.000.000');
    }
  });
});

describe('formatRupiah', () => {
  it.each<[number, string]>([
    [0, 'Rp0'],
    [1, 'Rp1'],
    [999, 'Rp999'],
    [1000, 'Rp1.000'],
    [10_000_000, 'Rp10.000.000'],
    [123_456_789, 'Rp123.456.789'],
    [-1500, '-Rp1.500'],
  ])('%d -> %s', (n, s) => expect(formatRupiah(n)).toBe(s));
});

describe('parseAmount properties', () => {
  it('round-trips every integer in range, with and without ".00"', () => {
    fc.assert(
      fc.property(fc.integer({ min: LIMITS.min, max: LIMITS.max }), (n) => {
        expect(parseAmount(String(n), LIMITS)).toBe(n);
        expect(parseAmount(`${n}.00`, LIMITS)).toBe(n);
        expect(parseAmount(n, LIMITS)).toBe(n);
      }),
    );
  });

  it('never throws anything but its own AppErrors', () => {
    const codes = new Set(['amount_required', 'invalid_amount', 'amount_out_of_range']);
    // Mix in digit-heavy strings: purely arbitrary strings almost never reach the numeric paths.
    const input = fc.oneof(
      fc.string({ unit: 'grapheme-composite' }),
      fc.string(),
      fc.stringMatching(/^[0-9.,e+\- ]{0,20}$/),
      fc.anything(),
    );
    fc.assert(
      fc.property(input, (raw) => {
        try {
          const n = parseAmount(raw, LIMITS);
          expect(Number.isSafeInteger(n)).toBe(true);
          expect(n).toBeGreaterThanOrEqual(LIMITS.min);
          expect(n).toBeLessThanOrEqual(LIMITS.max);
        } catch (err) {
          expect(err).toBeInstanceOf(AppError);
          expect(codes.has((err as AppError).code)).toBe(true);
          expect((err as AppError).param).toBe('amount');
        }
      }),
      { numRuns: 5000 },
    );
  });
});
