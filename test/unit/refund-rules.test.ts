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
  refundStanding,
} from '../../src/domain/refund.js';
import type { RefundsTable } from '../../src/domain/records.js';
import { address, disguise } from '../helpers/link-arbitraries.js';

// Reasons as merchants write them: words, with a full stop or comma followed by a space, and amounts the
// Indonesian way, thousands grouped by dots ("Rp1.500", "5.000", "Rp 10.000,00") up to hundreds of millions.
const reasonWord = fc.oneof(
  fc.stringMatching(/^[A-Za-zÀ-ÿ]{1,12}[.,!?:]?$/),
  fc.integer({ min: 1, max: 999_999_999 }).map((n) => n.toLocaleString('id-ID')),
  fc.integer({ min: 1, max: 999_999_999 }).map((n) => `Rp${n.toLocaleString('id-ID')}`),
  fc.integer({ min: 1, max: 999_999_999 }).map((n) => `Rp ${n.toLocaleString('id-ID')},00`),
  fc.constantFrom('No. 12', '2x', '50%', '@', '24/7', 'Jl. Sudirman', '(salah)', '-', '&', 'SKU-77'),
);
const plainReason = fc
  .array(reasonWord, { minLength: 1, maxLength: 12 })
  .map((words) => words.join(' ').slice(0, 200).trim())
  .filter((reason) => reason.length > 0);

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

  it("a receipt's standing counts only succeeded refunds: paid, partly refunded, refunded; what remains paid", () => {
    expect(refundStanding({ amount_paid: 10_000, refunded_amount: 0, refund_held: 4_000 })).toEqual({
      standing: 'paid',
      paid: 10_000,
      refunded: 0,
      inProgress: 4_000,
      remaining: 10_000,
    });
    expect(refundStanding({ amount_paid: 10_000, refunded_amount: 2_500, refund_held: 0 })).toMatchObject({
      standing: 'partly_refunded',
      remaining: 7_500,
    });
    expect(refundStanding({ amount_paid: 10_000, refunded_amount: 10_000, refund_held: 0 })).toMatchObject({
      standing: 'refunded',
      remaining: 0,
    });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000_000 }), fc.nat(10_000_000), fc.nat(10_000_000), (paid, a, b) => {
        const refunded = Math.min(a, paid);
        const held = Math.min(b, paid - refunded);
        const s = refundStanding({ amount_paid: paid, refunded_amount: refunded, refund_held: held });
        expect(s.refunded + s.remaining).toBe(paid);
        expect(s.standing).toBe(refunded === 0 ? 'paid' : refunded === paid ? 'refunded' : 'partly_refunded');
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

  it('a reason or a reference carrying a link or an address is refused, however it is spelled (issue 35, finding 2)', () => {
    fc.assert(
      fc.property(plainReason, address, disguise, plainReason, (before, link, hide, after) => {
        const text = `${before.slice(0, 100)} ${hide(link)} ${after.slice(0, 60)}`.trim();
        expect(
          refusal(() => parseRefundReason(text)),
          text,
        ).toMatchObject({ code: 'invalid_parameter', param: 'reason' });
        const reference = `${hide(link)} ${after}`.slice(0, 128).trim();
        fc.pre(reference.length <= 128 && reference.includes(hide(link)));
        expect(
          refusal(() => parseRefundReference(reference)),
          reference,
        ).toMatchObject({ code: 'invalid_parameter', param: 'reference' });
      }),
      { numRuns: 1000 },
    );
    const fullwidth = (s: string) => s.replace(/[a-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0x61 + 0xff41));
    for (const bad of [
      'see https://evil.example/verify',
      'evil.example',
      'x@evil.example',
      '10.0.0.1',
      'Verifikasi di evil\uFF0Eexample',
      'Verifikasi di evil\u3002example',
      'Verifikasi di evil\uFF61example',
      'Verifikasi di evil\u200B.\u200Bexample',
      'Verifikasi di e\u200Bvil.exa\u2060mple/verify',
      `Verifikasi di ${fullwidth('evil')}.${fullwidth('example')}`,
      'hxxp://evil',
      'www.bank-pulih',
      'Hubungi cs@localhost',
      'IP 192.168.1.10 ya',
      'Barang habis.Silakan cek',
    ]) {
      const err = refusal(() => parseRefundReason(bad));
      expect(err, bad).toMatchObject({ code: 'invalid_parameter', param: 'reason' });
      expect(err.message).toMatch(/link or an address/);
      expect(
        refusal(() => parseRefundReference(bad.slice(0, 128))),
        bad,
      ).toMatchObject({ code: 'invalid_parameter', param: 'reference' });
    }
  });

  it('ordinary reasons pass as typed (trimmed): words, and amounts with dots such as 10.000 or Rp1.500', () => {
    for (const ok of [
      'Barang habis',
      'Salah harga, kembalikan 5.000',
      'Rp 10.000',
      'Rp1.500',
      'Kembali Rp 1.250.000,00',
      'Dibatalkan. Maaf!',
      'No. 3 rusak',
    ]) {
      expect(parseRefundReason(` ${ok} `), ok).toBe(ok);
    }
    fc.assert(
      fc.property(plainReason, (reason) => {
        expect(parseRefundReason(reason), reason).toBe(reason);
      }),
      { numRuns: 2000 },
    );
    for (const ok of ['TRF-77', 'BCA 1234.5678', 'DANA-778899', '20250131.001'])
      expect(parseRefundReference(ok), ok).toBe(ok);
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
