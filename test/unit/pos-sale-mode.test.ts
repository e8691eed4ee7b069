// Issue 37, section 1: the mode a point of sale sells in. Live only once a live sale can be paid.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { posSaleMode } from '../../src/domain/pos-sale-mode.js';

describe('the mode a point of sale sells in', () => {
  it('is live only for a merchant that is not the demo, whose live payments are open, with a live source', () => {
    expect(posSaleMode({ demo: false, liveRefused: false, liveSource: true })).toEqual({
      mode: 'live',
      sandboxReason: null,
    });
  });

  it('is the sandbox, with why, otherwise', () => {
    expect(posSaleMode({ demo: true, liveRefused: false, liveSource: true })).toEqual({
      mode: 'test',
      sandboxReason: 'demo',
    });
    expect(posSaleMode({ demo: false, liveRefused: true, liveSource: true })).toEqual({
      mode: 'test',
      sandboxReason: 'live_refused',
    });
    expect(posSaleMode({ demo: false, liveRefused: false, liveSource: false })).toEqual({
      mode: 'test',
      sandboxReason: 'no_live_source',
    });
  });

  it('never sells live for the demo merchant, nor without a live source, whatever else holds', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), fc.boolean(), (demo, liveRefused, liveSource) => {
        const chosen = posSaleMode({ demo, liveRefused, liveSource });
        expect(chosen.mode === 'live').toBe(!demo && !liveRefused && liveSource);
        if (demo) expect(chosen.sandboxReason).toBe('demo');
        expect(chosen.sandboxReason === null).toBe(chosen.mode === 'live');
      }),
    );
  });
});
