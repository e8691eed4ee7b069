import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import {
  CANDIDATES,
  codeRange,
  exhausted,
  largestCode,
  lifetime,
  sampleCodes,
  secondsUntilFree,
  takeRandom,
  wideEnoughToSample,
} from '../../src/domain/unique-codes.js';

// A range: its low end and how many codes it holds.
const range = fc
  .tuple(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 1, max: 5000 }))
  .map(([low, size]) => ({ low, high: low + size - 1 }));

describe('unique-code rules', () => {
  it('candidates are distinct, within [low, high], and as many as asked or the whole range', () => {
    fc.assert(
      fc.property(range, fc.integer({ min: 0, max: 40 }), ({ low, high }, count) => {
        const codes = sampleCodes(low, high, count);
        expect(new Set(codes).size).toBe(codes.length);
        expect(codes.length).toBe(Math.min(count, high - low + 1));
        for (const c of codes) {
          expect(Number.isInteger(c)).toBe(true);
          expect(c).toBeGreaterThanOrEqual(low);
          expect(c).toBeLessThanOrEqual(high);
        }
      }),
    );
  });

  it('both create paths sample the same number of candidates by default', () => {
    expect(sampleCodes(1, 999)).toHaveLength(CANDIDATES);
  });

  it('ranges of more than 64 codes are sampled, smaller ones read whole', () => {
    expect(wideEnoughToSample(1, 64)).toBe(false);
    expect(wideEnoughToSample(1, 65)).toBe(true);
    fc.assert(fc.property(range, ({ low, high }) => wideEnoughToSample(low, high) === high - low + 1 > 64));
    // A sampled range always has room for every candidate.
    expect(wideEnoughToSample(1, CANDIDATES)).toBe(false);
  });

  it('takeRandom removes and returns one element of the list', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer(), { minLength: 1 }), (list) => {
        const copy = [...list];
        const pick = takeRandom(copy);
        expect(list).toContain(pick);
        expect(copy).toHaveLength(list.length - 1);
        expect([...copy, pick].sort()).toEqual([...list].sort());
      }),
    );
  });

  it('the code range scales with the price: at most max(99, 1% of it), never above UNIQUE_CODE_MAX nor AMOUNT_MAX', () => {
    const limits = { uniqueCodeMin: 1, uniqueCodeMax: 999, amountMin: 1, amountMax: 10_000_000 };
    // The examples: a warung's small sale gets a small code.
    expect(codeRange(limits, 7_500)).toEqual({ low: 1, high: 99 });
    expect(codeRange(limits, 9_000)).toEqual({ low: 1, high: 99 });
    expect(codeRange(limits, 10_000)).toEqual({ low: 1, high: 100 });
    expect(codeRange(limits, 50_000)).toEqual({ low: 1, high: 500 });
    expect(codeRange(limits, 100_000)).toEqual({ low: 1, high: 999 });
    expect(codeRange(limits, 5_000_000)).toEqual({ low: 1, high: 999 });
    expect(codeRange(limits, 9_999_500)).toEqual({ low: 1, high: 500 });
    expect(codeRange(limits, 9_999_999)).toEqual({ low: 1, high: 1 });
    expect(codeRange(limits, 10_000_000)).toBeNull();
    // An operator's smallest code above 99 still leaves that one code on a small price.
    expect(codeRange({ ...limits, uniqueCodeMin: 200 }, 7_500)).toEqual({ low: 200, high: 200 });
    expect(largestCode(limits, 7_500)).toBe(99);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 1, max: 200_000 }),
        (min, span, amount) => {
          const l = { uniqueCodeMin: min, uniqueCodeMax: min + span, amountMin: 1, amountMax: 100_000 };
          const r = codeRange(l, amount, 'add');
          if (r === null) {
            expect(amount + min).toBeGreaterThan(l.amountMax);
            return;
          }
          expect(r.low).toBe(min);
          expect(r.high).toBeGreaterThanOrEqual(r.low);
          expect(r.high).toBeLessThanOrEqual(l.uniqueCodeMax);
          expect(r.high).toBeLessThanOrEqual(Math.max(99, Math.floor(amount / 100), min));
          expect(amount + r.high).toBeLessThanOrEqual(l.amountMax);
        },
      ),
    );
  });

  it('subtracted, the payer never pays more than the price, nor less than AMOUNT_MIN, and the code scales the same way', () => {
    const limits = { uniqueCodeMin: 1, uniqueCodeMax: 999, amountMin: 1, amountMax: 10_000_000 };
    expect(codeRange(limits, 7_500, 'subtract')).toEqual({ low: -99, high: -1 });
    expect(codeRange(limits, 50_000, 'subtract')).toEqual({ low: -500, high: -1 });
    expect(codeRange(limits, 250_000, 'subtract')).toEqual({ low: -999, high: -1 });
    // Tiny prices: the discount leaves at least AMOUNT_MIN; a price with no room for one is refused.
    expect(codeRange(limits, 50, 'subtract')).toEqual({ low: -49, high: -1 });
    expect(codeRange(limits, 1, 'subtract')).toBeNull();
    expect(codeRange({ ...limits, amountMin: 1_000 }, 1_040, 'subtract')).toEqual({ low: -40, high: -1 });
    expect(codeRange({ ...limits, amountMin: 1_000 }, 1_000, 'subtract')).toBeNull();
    // A code of 0 is 0, never -0.
    expect(Object.is(codeRange({ ...limits, uniqueCodeMin: 0 }, 7_500, 'subtract')!.high, 0)).toBe(true);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 1, max: 5_000 }),
        fc.integer({ min: 1, max: 20_000_000 }),
        (min, span, amountMin, price) => {
          const l = { uniqueCodeMin: min, uniqueCodeMax: min + span, amountMin, amountMax: 20_000_000 };
          const r = codeRange(l, price, 'subtract');
          if (r === null) {
            expect(price - min).toBeLessThan(amountMin);
            return;
          }
          expect(r.low).toBeLessThanOrEqual(r.high);
          for (const code of [r.low, r.high]) {
            const total = price + code;
            expect(total).toBeLessThanOrEqual(price);
            expect(total).toBeGreaterThanOrEqual(amountMin);
            expect(total).toBeGreaterThan(0);
            expect(-code).toBeGreaterThanOrEqual(min);
            expect(-code).toBeLessThanOrEqual(l.uniqueCodeMax);
            expect(-code).toBeLessThanOrEqual(Math.max(99, Math.floor(price / 100), min));
          }
          // As many codes as the price would get added, unless AMOUNT_MIN leaves fewer.
          const added = codeRange({ ...l, amountMax: Number.MAX_SAFE_INTEGER }, price, 'add')!;
          expect(r.high - r.low).toBeLessThanOrEqual(added.high - added.low);
        },
      ),
    );
  });

  it('lifetime: the request expiry or the default TTL; the total stays reserved for the grace after it', () => {
    const settings = { transactionTtlSeconds: 900, reservationGraceSeconds: 600 };
    expect(lifetime(settings, null, 1_000)).toEqual({ expiresAt: 901_000, reservedUntil: 1_501_000 });
    expect(lifetime(settings, 60, 1_000)).toEqual({ expiresAt: 61_000, reservedUntil: 661_000 });
  });

  it('exhaustion: Retry-After is when the soonest live hold lapses, at least 1 s and at most an hour', () => {
    const now = 1_000_000;
    expect(secondsUntilFree([{ reserved_until: now + 2_500 }, { reserved_until: now + 90_000 }], now)).toBe(3);
    // Lapsed holds do not count: they can be reclaimed now.
    expect(secondsUntilFree([{ reserved_until: now - 1 }, { reserved_until: now + 10_000 }], now)).toBe(10);
    expect(secondsUntilFree([], now)).toBe(1);
    expect(secondsUntilFree([{ reserved_until: now + 10 * 3_600_000 }], now)).toBe(3600);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1e7, max: 1e8 }).map((d) => ({ reserved_until: now + d }))), (holds) => {
        const s = secondsUntilFree(holds, now);
        expect(Number.isInteger(s)).toBe(true);
        expect(s).toBeGreaterThanOrEqual(1);
        expect(s).toBeLessThanOrEqual(3600);
      }),
    );
    const err = exhausted([{ reserved_until: now + 2_500 }], now);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('unique_code_exhausted');
    expect(err.retryAfter).toBe(3);
  });
});
