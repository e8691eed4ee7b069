import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTimeOrNull, isoTime } from '../../src/domain/iso-time.js';

const reference = (ms: number): string => new Date(ms).toISOString();
const END_OF_9999 = 253_402_300_800_000;

describe('isoTime is Date#toISOString', () => {
  it('at the edges of days, years and the fast range', () => {
    const edges = [
      0,
      1,
      999,
      1000,
      59_999,
      60_000,
      3_599_999,
      3_600_000,
      86_399_999,
      86_400_000,
      951_782_400_000 /* 2000-02-29 */,
      4_107_542_399_999 /* 2100-02-28T23:59:59.999 */,
      4_107_542_400_000,
      END_OF_9999 - 1,
      END_OF_9999,
      END_OF_9999 + 1,
      -1,
      -86_400_000,
      -62_198_755_200_000,
      8.64e15,
      -8.64e15,
      1.5,
      -0.5,
      1_732_252_800_123.9,
      -0,
    ];
    for (const ms of edges) expect(isoTime(ms), String(ms)).toBe(reference(ms));
  });

  it('throws as Date does for times it cannot show', () => {
    for (const ms of [Number.NaN, Infinity, -Infinity, 8.64e15 + 1]) {
      expect(() => reference(ms)).toThrow(RangeError);
      expect(() => isoTime(ms)).toThrow(RangeError);
    }
  });

  it('for any time, in any order (the reused day part never leaks into another day)', () => {
    const anyTime = fc.oneof(
      fc.integer({ min: -8.64e15, max: 8.64e15 }),
      fc.integer({ min: 0, max: END_OF_9999 + 86_400_000 }),
      fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }),
    );
    fc.assert(
      fc.property(fc.array(anyTime, { minLength: 1, maxLength: 20 }), (times) => {
        for (const ms of times) expect(isoTime(ms)).toBe(reference(ms));
      }),
      { numRuns: 3000 },
    );
  });

  it('isoTimeOrNull keeps an absent time absent', () => {
    expect(isoTimeOrNull(null)).toBeNull();
    expect(isoTimeOrNull(undefined)).toBeNull();
    expect(isoTimeOrNull(0)).toBe('1970-01-01T00:00:00.000Z');
  });
});
