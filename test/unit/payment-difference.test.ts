import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { differenceMessage, paymentDifference } from '../../src/domain/payment-difference.js';

describe('paymentDifference', () => {
  it('is underpaid when less, overpaid when more, both 0 when equal', () => {
    expect(paymentDifference(25_000, 25_123)).toEqual({ underpaid: 123, overpaid: 0 });
    expect(paymentDifference(26_000, 25_123)).toEqual({ underpaid: 0, overpaid: 877 });
    expect(paymentDifference(25_123, 25_123)).toEqual({ underpaid: 0, overpaid: 0 });
  });

  it('never negative, at most one side, and paid + underpaid - overpaid is the total', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.integer({ min: 1, max: 10_000_000 }), (paid, total) => {
        const d = paymentDifference(paid, total);
        expect(d.underpaid).toBeGreaterThanOrEqual(0);
        expect(d.overpaid).toBeGreaterThanOrEqual(0);
        expect(d.underpaid === 0 || d.overpaid === 0).toBe(true);
        expect(paid + d.underpaid - d.overpaid).toBe(total);
      }),
    );
  });

  it("the refusal's message names both amounts and the difference", () => {
    expect(differenceMessage(25_000, 25_123)).toBe(
      'payment Rp25.000 is Rp123 less than the total Rp25.123; accept the difference or keep the transaction open for the rest to assign it',
    );
    expect(differenceMessage(1_026_000, 1_025_123)).toBe('payment Rp1.026.000 is Rp877 more than the total Rp1.025.123; accept the difference to assign it');
  });
});
