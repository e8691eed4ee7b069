import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newPaymentId, newTransactionId, timePrefix } from '../../src/domain/ids.js';

describe('time-ordered ids', () => {
  it('time prefixes have one width and sort as text in the order of their times', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 36 ** 9 - 1 }), fc.integer({ min: 0, max: 36 ** 9 - 1 }), (a, b) => {
        const pa = timePrefix(a);
        const pb = timePrefix(b);
        expect(pa).toMatch(/^[0-9a-z]{9}$/);
        expect(pb).toHaveLength(9);
        // Byte order (SQLite, PostgreSQL's C collation) and a locale's order agree on [0-9a-z].
        expect(Math.sign(pa < pb ? -1 : pa > pb ? 1 : 0)).toBe(Math.sign(a - b));
        expect(Math.sign(pa.localeCompare(pb, 'en'))).toBe(Math.sign(a - b));
        expect(parseInt(pa, 36)).toBe(a);
      }),
    );
  });

  it('a transaction id is the current millisecond then 130 random bits', () => {
    const before = Date.now();
    const id = newTransactionId();
    const after = Date.now();
    expect(id).toMatch(/^trx_[0-9a-z]{9}[0-9A-Za-z]{22}$/);
    const at = parseInt(id.slice(4, 13), 36);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
    // Ids made in the same millisecond differ in their random part.
    const many = new Set(Array.from({ length: 2000 }, () => newTransactionId()));
    expect(many.size).toBe(2000);
  });

  it('ids made later sort after ids made earlier', async () => {
    const first = newPaymentId();
    await new Promise((r) => setTimeout(r, 3));
    const second = newPaymentId();
    expect(first.slice(0, 13) < second.slice(0, 13)).toBe(true);
  });
});
