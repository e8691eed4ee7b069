import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decideMatch, isLate, type MatchCandidate, type PaymentFacts } from '../../src/domain/matching.js';

const MIN = 60_000;
const T0 = Date.UTC(2025, 0, 31, 7, 0, 0);
const SKEW = 2 * MIN;

function tx(over: Partial<MatchCandidate> = {}): MatchCandidate {
  return {
    id: 'trx_a',
    status: 'pending',
    total_amount: 10_123,
    created_at: T0,
    expires_at: T0 + 15 * MIN,
    acquirer_reference: null,
    ...over,
  };
}

function decide(payment: Partial<PaymentFacts>, named: MatchCandidate[], byAmount: MatchCandidate[], now = T0 + MIN) {
  return decideMatch({
    payment: { amount: 10_123, paidAt: T0 + MIN, ...payment },
    named,
    byAmount,
    now,
    clockSkewMs: SKEW,
  });
}

describe('by reference', () => {
  it('a named trxid pays that transaction, whatever holds the amount', () => {
    const named = tx({ id: 'trx_named' });
    const other = tx({ id: 'trx_other' });
    expect(decide({ trxid: 'trx_named' }, [named], [other])).toMatchObject({
      outcome: 'matched',
      by: 'trxid',
      transaction: { id: 'trx_named' },
      late: false,
    });
  });

  it("a reference equal to the acquirer's reference pays that transaction", () => {
    const t = tx({ id: 'trx_snap', acquirer_reference: 'ACQ-1', total_amount: 50_000 });
    expect(decide({ amount: 50_000, reference: 'ACQ-1' }, [t], [])).toMatchObject({
      outcome: 'matched',
      by: 'reference',
      transaction: { id: 'trx_snap' },
    });
  });

  it('a reference equal to our trxid pays that transaction', () => {
    expect(decide({ reference: 'trx_a' }, [tx()], [])).toMatchObject({ outcome: 'matched', by: 'reference' });
  });

  it('the reference rule ignores the time window (the reference is proof enough)', () => {
    expect(decide({ trxid: 'trx_a', paidAt: T0 - 60 * MIN }, [tx()], [])).toMatchObject({ outcome: 'matched' });
  });

  it('a named transaction of another amount is amount_mismatch, not a fallback to the amount rule', () => {
    const byAmount = tx({ id: 'trx_amount', total_amount: 9_999 });
    expect(decide({ trxid: 'trx_a', amount: 9_999 }, [tx()], [byAmount])).toEqual({
      outcome: 'unmatched',
      reason: 'amount_mismatch',
      transaction: tx(),
    });
  });

  it('a named transaction already paid is transaction_already_paid', () => {
    expect(decide({ trxid: 'trx_a' }, [tx({ status: 'paid' })], [])).toMatchObject({
      outcome: 'unmatched',
      reason: 'transaction_already_paid',
    });
  });

  it('an unknown reference falls back to the amount rule', () => {
    expect(decide({ reference: 'WALLET-REF-9' }, [], [tx()])).toMatchObject({ outcome: 'matched', by: 'amount' });
  });

  it('a trxid the candidates do not contain is ignored (another merchant is filtered out by the caller)', () => {
    expect(decide({ trxid: 'trx_zzz' }, [tx()], [])).toMatchObject({
      outcome: 'unmatched',
      reason: 'no_matching_transaction',
    });
  });
});

describe('by amount', () => {
  it('the one transaction holding the total is paid on time', () => {
    expect(decide({}, [], [tx()])).toMatchObject({ outcome: 'matched', by: 'amount', late: false });
  });

  it('nothing holding the total is no_matching_transaction', () => {
    expect(decide({}, [], [])).toEqual({ outcome: 'unmatched', reason: 'no_matching_transaction', transaction: null });
  });

  it('candidates of another total are not matches', () => {
    expect(decide({}, [], [tx({ total_amount: 10_124 })])).toMatchObject({
      outcome: 'unmatched',
      reason: 'no_matching_transaction',
    });
  });

  it('a payment dated before creation minus the skew is paid_before_creation', () => {
    expect(decide({ paidAt: T0 - SKEW - 1 }, [], [tx()])).toMatchObject({
      outcome: 'unmatched',
      reason: 'paid_before_creation',
      transaction: { id: 'trx_a' },
    });
  });

  it('a payment dated within the skew before creation matches', () => {
    expect(decide({ paidAt: T0 - SKEW }, [], [tx()])).toMatchObject({ outcome: 'matched' });
  });

  it('a transaction already paid is transaction_already_paid', () => {
    expect(decide({}, [], [tx({ status: 'paid' })])).toMatchObject({
      outcome: 'unmatched',
      reason: 'transaction_already_paid',
    });
  });

  it('two holders of one total are ambiguous: nothing is guessed', () => {
    expect(decide({}, [], [tx({ id: 'trx_1' }), tx({ id: 'trx_2' })])).toMatchObject({
      outcome: 'unmatched',
      reason: 'ambiguous_amount',
      transaction: null,
    });
  });

  it('the same candidate listed twice is still one', () => {
    expect(decide({}, [], [tx(), tx()])).toMatchObject({ outcome: 'matched' });
  });
});

describe('lateness', () => {
  it.each(['expired', 'cancelled'] as const)('a payment for a %s transaction pays it late', (status) => {
    expect(decide({}, [], [tx({ status })])).toMatchObject({ outcome: 'matched', late: true });
    expect(decide({ trxid: 'trx_a' }, [tx({ status })], [])).toMatchObject({ outcome: 'matched', late: true });
  });

  it('a pending transaction paid at or after its expiry is late; just before is on time', () => {
    const t = tx();
    expect(isLate(t, t.expires_at - 1, t.expires_at - 1)).toBe(false);
    expect(isLate(t, t.expires_at, t.expires_at)).toBe(true);
    // Paid in time but learned of after expiry (a feed polled late): the merchant may have seen "expired".
    expect(isLate(t, t.expires_at - 1, t.expires_at)).toBe(true);
  });
});

describe('properties', () => {
  const candidate = fc.record({
    id: fc.constantFrom('trx_1', 'trx_2', 'trx_3'),
    status: fc.constantFrom('pending', 'paid', 'expired', 'cancelled'),
    total_amount: fc.constantFrom(100, 101, 102),
    created_at: fc.integer({ min: 0, max: 1000 }),
    expires_at: fc.integer({ min: 500, max: 2000 }),
    acquirer_reference: fc.option(fc.constantFrom('A', 'B'), { nil: null }),
  }) as fc.Arbitrary<MatchCandidate>;
  const facts = fc.record({
    amount: fc.constantFrom(100, 101, 102),
    paidAt: fc.integer({ min: -500, max: 2500 }),
    trxid: fc.option(fc.constantFrom('trx_1', 'trx_9'), { nil: null }),
    reference: fc.option(fc.constantFrom('A', 'B', 'trx_2', 'X'), { nil: null }),
  });

  it('a match is always a listed, unpaid transaction of exactly the amount, late exactly when isLate says', () => {
    fc.assert(
      fc.property(
        facts,
        fc.array(candidate, { maxLength: 3 }),
        fc.array(candidate, { maxLength: 3 }),
        fc.integer({ min: 0, max: 2500 }),
        (payment, named, byAmount, now) => {
          const d = decideMatch({ payment, named, byAmount, now, clockSkewMs: 100 });
          if (d.outcome === 'matched') {
            expect([...named, ...byAmount]).toContain(d.transaction);
            expect(d.transaction.total_amount).toBe(payment.amount);
            expect(d.transaction.status).not.toBe('paid');
            expect(d.late).toBe(isLate(d.transaction, payment.paidAt, now));
            if (d.by === 'amount') expect(payment.paidAt).toBeGreaterThanOrEqual(d.transaction.created_at - 100);
          } else {
            expect(d.reason).toMatch(/^[a-z_]+$/);
          }
        },
      ),
    );
  });
});

describe('a transaction kept open after a part payment', () => {
  it('is never completed by the matcher, named or by amount: amount_mismatch, for a person to assign', () => {
    const part = tx({ amount_paid: 4_000 });
    expect(decide({ trxid: 'trx_a' }, [part], [])).toEqual({
      outcome: 'unmatched',
      reason: 'amount_mismatch',
      transaction: part,
    });
    expect(decide({}, [], [part])).toEqual({ outcome: 'unmatched', reason: 'amount_mismatch', transaction: part });
    // Once paid, a further payment is a double payment as for any paid transaction.
    const paid = tx({ amount_paid: 10_123, status: 'paid' });
    expect(decide({}, [], [paid])).toMatchObject({ outcome: 'unmatched', reason: 'transaction_already_paid' });
  });

  it("a person's confirmation of exactly the rest (named) completes it; any other amount, or a feed's report, does not", () => {
    const part = tx({ amount_paid: 4_000 });
    const rest = part.total_amount - 4_000;
    expect(decide({ trxid: 'trx_a', amount: rest, confirmsRest: true }, [part], [])).toMatchObject({
      outcome: 'matched',
      transaction: part,
    });
    expect(decide({ trxid: 'trx_a', amount: part.total_amount, confirmsRest: true }, [part], [])).toMatchObject({
      outcome: 'unmatched',
      reason: 'amount_mismatch',
    });
    expect(decide({ trxid: 'trx_a', amount: rest }, [part], [])).toMatchObject({
      outcome: 'unmatched',
      reason: 'amount_mismatch',
    });
    const paid = tx({ amount_paid: 10_123, status: 'paid' });
    expect(decide({ trxid: 'trx_a', amount: 1, confirmsRest: true }, [paid], [])).toMatchObject({
      outcome: 'unmatched',
    });
  });
});
