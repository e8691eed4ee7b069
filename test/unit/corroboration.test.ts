import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCorroboration } from '../../src/domain/payment.js';

const from = (...sources: string[]) => sources.map((source) => ({ source }));

describe('isCorroboration', () => {
  it('is another source’s view of a payment only while some other source reported more of them', () => {
    expect(isCorroboration('bank', from('phone'))).toBe(true);
    expect(isCorroboration('bank', from('phone', 'bank'))).toBe(false);
    expect(isCorroboration('bank', from('phone', 'phone', 'bank'))).toBe(true);
    expect(isCorroboration('phone', from('phone'))).toBe(false);
    expect(isCorroboration('phone', [])).toBe(false);
  });

  it('reports arriving in any order leave as many double payments as the most any one source reported, less one', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 12 }), (arrivals) => {
        const recorded: Array<{ source: string; corroboration: boolean }> = [];
        for (const source of arrivals) recorded.push({ source, corroboration: isCorroboration(source, recorded) });
        const most = Math.max(...['a', 'b', 'c'].map((s) => arrivals.filter((x) => x === s).length));
        // The first report pays; every later one is a corroboration or a double payment.
        const doubles = recorded.slice(1).filter((r) => !r.corroboration).length;
        expect(doubles).toBe(most - 1);
      }),
    );
  });
});
