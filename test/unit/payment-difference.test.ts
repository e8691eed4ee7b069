import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amountsAfter, assignFit, differenceMessage, paymentDifference } from '../../src/domain/payment-difference.js';

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
    expect(differenceMessage(1_026_000, 1_025_123)).toBe(
      'payment Rp1.026.000 is Rp877 more than the total Rp1.025.123; accept the difference to assign it',
    );
  });
});

describe('a part payment kept open, then another', () => {
  it('amountsAfter adds the payment to what was received and compares the sum with the total', () => {
    expect(amountsAfter(0, 10_000, 25_123)).toEqual({ amountPaid: 10_000, underpaid: 15_123, overpaid: 0 });
    expect(amountsAfter(10_000, 15_123, 25_123)).toEqual({ amountPaid: 25_123, underpaid: 0, overpaid: 0 });
    expect(amountsAfter(10_000, 16_000, 25_123)).toEqual({ amountPaid: 26_000, underpaid: 0, overpaid: 877 });
  });

  it('assignFit: exact only when the sum is the total', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 1, max: 2_000_000 }),
        (before, paid, total) => {
          const fit = assignFit(before, paid, total);
          expect(fit).toBe(before + paid === total ? 'exact' : before + paid < total ? 'short' : 'over');
        },
      ),
    );
  });

  it('the refusal compares the payment with what is still due', () => {
    expect(differenceMessage(5_000, 25_123, 10_000)).toBe(
      'payment Rp5.000 is Rp10.123 less than the Rp15.123 still due of the total Rp25.123; accept the difference or keep the transaction open for the rest to assign it',
    );
    expect(differenceMessage(16_000, 25_123, 10_000)).toBe(
      'payment Rp16.000 is Rp877 more than the Rp15.123 still due of the total Rp25.123; accept the difference to assign it',
    );
  });
});
