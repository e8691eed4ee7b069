import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { snapMoney, type SnapAnswer } from '../../src/payment-sources/snap/client.js';
import { refundOutcome } from '../../src/payment-sources/snap/refund-answer.js';

const NOW = Date.UTC(2026, 10, 28, 6, 0, 0);
const asked = { referenceNo: 'A20261128abc' };

function answer(status: number, body: Record<string, unknown> | null): SnapAnswer {
  const code = typeof body?.responseCode === 'string' ? body.responseCode : null;
  return { status, body, responseCode: code, responseMessage: String(body?.responseMessage ?? '') };
}

describe('snapMoney', () => {
  it('writes whole rupiah as SNAP does, and reads back to the same amount', () => {
    expect(snapMoney(10_000)).toEqual({ value: '10000.00', currency: 'IDR' });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9_999_999_999_999 }), (rupiah) => {
        const { value, currency } = snapMoney(rupiah);
        expect(currency).toBe('IDR');
        expect(value).toMatch(/^[1-9][0-9]*\.00$/);
        expect(Number(value.slice(0, -3))).toBe(rupiah);
      }),
    );
  });
});

describe('refundOutcome', () => {
  it('is succeeded on 2007800, with the reference and refundTime of the answer', () => {
    const ok = answer(200, {
      responseCode: '2007800',
      responseMessage: 'Successful',
      originalReferenceNo: asked.referenceNo,
      referenceNo: 'R123',
      refundTime: '2026-11-28T20:10:11+07:00',
    });
    expect(refundOutcome(ok, asked, NOW)).toEqual({
      status: 'succeeded',
      reference: 'R123',
      completedAt: Date.UTC(2026, 10, 28, 13, 10, 11),
    });
  });

  it('takes now for a missing or garbled refundTime, and no reference for a missing or unusable one', () => {
    for (const refundTime of [undefined, '', 'yesterday', '2026-11-28 20:10:11', 20261128, null]) {
      const ok = answer(200, { responseCode: '2007800', refundTime });
      expect(refundOutcome(ok, asked, NOW)).toEqual({ status: 'succeeded', reference: null, completedAt: NOW });
    }
    for (const referenceNo of ['', '   ', 'x'.repeat(65), 42]) {
      expect(refundOutcome(answer(200, { responseCode: '2007800', referenceNo }), asked, NOW)).toMatchObject({
        reference: null,
      });
    }
  });

  it('is in_progress on HTTP 202 or a 202xxxx responseCode', () => {
    expect(refundOutcome(answer(202, { responseCode: '2027800', referenceNo: 'R9' }), asked, NOW)).toEqual({
      status: 'in_progress',
      reference: 'R9',
    });
    expect(refundOutcome(answer(202, null), asked, NOW)).toEqual({ status: 'in_progress', reference: null });
    expect(refundOutcome(answer(200, { responseCode: '2027800' }), asked, NOW)).toEqual({
      status: 'in_progress',
      reference: null,
    });
  });

  it('tells an amount over the remaining from other refusals, keeping the code and message', () => {
    const exceeds = [
      answer(403, { responseCode: '4037802', responseMessage: 'Exceeds Transaction Amount Limit' }),
      answer(403, { responseCode: '4037814', responseMessage: 'Insufficient Funds' }),
      answer(404, { responseCode: '4047813', responseMessage: 'Invalid Amount' }),
      answer(400, { responseCode: '4007800', responseMessage: 'Refund amount exceeds the remaining amount' }),
      answer(400, { responseCode: '4007800', responseMessage: 'Nominal refund melebihi sisa transaksi' }),
    ];
    for (const a of exceeds) {
      const outcome = refundOutcome(a, asked, NOW);
      expect(outcome).toMatchObject({ status: 'refused', code: 'refund_exceeds_remaining' });
      if (outcome.status === 'refused') expect(outcome.message).toContain(`${a.responseCode} ${a.responseMessage}`);
    }
    const refused = [
      answer(403, { responseCode: '4037805', responseMessage: 'Do Not Honor' }),
      answer(403, { responseCode: '4037815', responseMessage: 'Transaction Not Permitted' }),
      answer(404, { responseCode: '4047801', responseMessage: 'Transaction Not Found' }),
      answer(409, { responseCode: '4097800', responseMessage: 'Conflict' }),
      answer(400, null),
      // A 2xx that is not a success code is not a success.
      answer(200, { responseCode: '4037805', responseMessage: 'Do Not Honor' }),
      answer(200, null),
    ];
    for (const a of refused) {
      const outcome = refundOutcome(a, asked, NOW);
      expect(outcome).toMatchObject({ status: 'refused', code: 'refund_refused' });
      if (outcome.status === 'refused') expect(outcome.message).toContain(a.responseCode ?? `HTTP ${a.status}`);
    }
  });

  it('throws acquirer_error for an answer about another payment', () => {
    const other = answer(200, { responseCode: '2007800', originalReferenceNo: 'A-someone-else' });
    expect(() => refundOutcome(other, asked, NOW)).toThrow(AppError);
    expect(() => refundOutcome(other, asked, NOW)).toThrow(/another originalReferenceNo/);
  });

  it('answers every other answer with one of the three outcomes, never throwing', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 200, max: 499 }).filter((s) => s !== 429),
        fc.option(fc.stringMatching(/^[0-9]{7}$/), { nil: undefined }),
        fc.string({ maxLength: 40 }),
        fc.option(fc.string({ maxLength: 70 }), { nil: undefined }),
        (status, responseCode, responseMessage, referenceNo) => {
          const outcome = refundOutcome(answer(status, { responseCode, responseMessage, referenceNo }), asked, NOW);
          expect(['succeeded', 'in_progress', 'refused']).toContain(outcome.status);
          // Only a 2xx can say the money moved or is moving.
          if (status >= 300) expect(outcome.status).toBe('refused');
          if (outcome.status === 'succeeded') expect(responseCode).toMatch(/^200/);
          if (outcome.status === 'refused') expect(outcome.message.length).toBeGreaterThan(0);
        },
      ),
    );
  });
});
