// The pure rules of refunds (issue 28, section 1): what remains refundable, the request's fields, and when
// a pending refund is asked of its acquirer again.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import {
  nextRefundAttemptAt,
  parseRefundAmount,
  parseRefundReason,
  parseRefundReference,
  presentRefund,
  refundableRemainder,
} from '../../src/domain/refund.js';
import type { RefundsTable } from '../../src/domain/records.js';

const refusal = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('not refused');
};

describe('refund rules', () => {
  it('what remains is what was received less succeeded and held refunds, never below 0', () => {
    expect(refundableRemainder({ amount_paid: 10_000, refunded_amount: 2_000, refund_held: 3_000 })).toBe(5_000);
    expect(refundableRemainder({ amount_paid: 0, refunded_amount: 0, refund_held: 0 })).toBe(0);
    expect(refundableRemainder({})).toBe(0);
    fc.assert(
      fc.property(fc.nat(10_000_000), fc.nat(10_000_000), fc.nat(10_000_000), (paid, refunded, held) => {
        const left = refundableRemainder({ amount_paid: paid, refunded_amount: refunded, refund_held: held });
        expect(left).toBeGreaterThanOrEqual(0);
        if (refunded + held <= paid) expect(left + refunded + held).toBe(paid);
      }),
    );
  });

  it('an amount is a positive whole number of rupiah, or absent for all that remains', () => {
    expect(parseRefundAmount(undefined)).toBeNull();
    expect(parseRefundAmount('')).toBeNull();
    expect(parseRefundAmount('1500')).toBe(1500);
    expect(parseRefundAmount(1500)).toBe(1500);
    for (const bad of ['0', '-1', '1.5', '1e3', ' 15', 'abc', 1.5, -3, 0, '9999999999999999', ['1'], {}]) {
      expect(
        refusal(() => parseRefundAmount(bad)),
        JSON.stringify(bad),
      ).toMatchObject({ code: 'invalid_parameter', param: 'amount' });
    }
  });

  it('a reason is required, trimmed, at most 256 characters, without control characters; a reference is optional', () => {
    expect(parseRefundReason('  out of stock ')).toBe('out of stock');
    expect(parseRefundReason('x'.repeat(256))).toHaveLength(256);
    for (const bad of [undefined, null, '', '   ', 'x'.repeat(257), 'a\nb', 'a\u0000b', 5]) {
      expect(
        refusal(() => parseRefundReason(bad)),
        JSON.stringify(bad),
      ).toMatchObject({ code: 'invalid_parameter', param: 'reason' });
    }
    expect(parseRefundReference(undefined)).toBeNull();
    expect(parseRefundReference('  ')).toBeNull();
    expect(parseRefundReference(' TRF-1 ')).toBe('TRF-1');
    for (const bad of ['r'.repeat(129), 'a\tb', 7]) {
      expect(
        refusal(() => parseRefundReference(bad)),
        JSON.stringify(bad),
      ).toMatchObject({ code: 'invalid_parameter', param: 'reference' });
    }
  });

  it('asks again after 30 s, doubling, at most hourly, and never gives up', () => {
    const now = 1_000_000;
    expect([1, 2, 3, 4, 7, 8, 50, 10_000].map((n) => nextRefundAttemptAt(n, now) - now)).toEqual([
      30_000, 60_000, 120_000, 240_000, 1_920_000, 3_600_000, 3_600_000, 3_600_000,
    ]);
  });

  it('presents a refund as the API shows it', () => {
    const row: RefundsTable = {
      id: 'rf_1',
      transaction_id: 'trx_1',
      merchant_id: 'mch_1',
      mode: 'test',
      amount: 5000,
      reason: 'r',
      status: 'succeeded',
      recorded: 1,
      reference: 'TRF',
      payment_id: null,
      requested_by: 'cli',
      idempotency_key: null,
      request_hash: null,
      error_code: null,
      error_message: null,
      attempts: 0,
      next_attempt_at: null,
      created_at: Date.UTC(2026, 0, 2, 3, 4, 5),
      updated_at: 0,
      completed_at: null,
    };
    expect(presentRefund(row)).toEqual({
      id: 'rf_1',
      amount: 5000,
      status: 'succeeded',
      reason: 'r',
      created_at: '2026-01-02T03:04:05.000Z',
      completed_at: null,
      reference: 'TRF',
      recorded: true,
      error_code: null,
    });
  });
});
