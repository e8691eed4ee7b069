import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LogChunks } from '../../src/http/log-chunks.js';

/** A destination that records what it was handed and when it was flushed synchronously. */
function collector() {
  const chunks: string[] = [];
  let syncFlushes = 0;
  return {
    chunks,
    syncFlushes: () => syncFlushes,
    write: (chunk: string) => void chunks.push(chunk),
    flushSync: () => void syncFlushes++,
    // The same file: what is written either way lands in order.
    writeSync: (chunk: string) => void chunks.push(chunk),
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('log chunks', () => {
  it('hand every line on once, in order, whatever the sizes and wherever the timer fires', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ line: fc.string({ maxLength: 300 }), tick: fc.boolean() }), { maxLength: 80 }),
        fc.integer({ min: 1, max: 2000 }),
        (steps, chunkChars) => {
          vi.useFakeTimers();
          const target = collector();
          const chunks = new LogChunks(target, chunkChars, 100);
          for (const { line, tick } of steps) {
            chunks.write(`${line}\n`);
            if (tick) vi.advanceTimersByTime(100);
          }
          chunks.close();
          vi.useRealTimers();
          expect(target.chunks.join('')).toBe(steps.map((s) => `${s.line}\n`).join(''));
          // Every chunk but the last reached the threshold or was written by the timer; none is empty.
          expect(target.chunks.every((c) => c.length > 0)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('hold short lines until the chunk is full or the timer fires', () => {
    vi.useFakeTimers();
    const target = collector();
    const chunks = new LogChunks(target, 20, 100);
    chunks.write('0123456789\n');
    expect(target.chunks).toEqual([]);
    chunks.write('0123456789\n');
    expect(target.chunks).toEqual(['0123456789\n0123456789\n']);
    chunks.write('late\n');
    vi.advanceTimersByTime(99);
    expect(target.chunks).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(target.chunks).toEqual(['0123456789\n0123456789\n', 'late\n']);
    // A timer with nothing collected writes nothing.
    vi.advanceTimersByTime(1000);
    expect(target.chunks).toHaveLength(2);
    chunks.close();
  });

  it('write what is left and flush the destination when the process exits', () => {
    const before = new Set(process.listeners('exit'));
    const target = collector();
    const chunks = new LogChunks(target, 4096, 100);
    const added = process.listeners('exit').filter((l) => !before.has(l));
    expect(added).toHaveLength(1);
    chunks.write('last words\n');
    // Called as the process would at exit (emitting 'exit' here would run the test runner's own listeners).
    (added[0] as () => void)();
    expect(target.chunks).toEqual(['last words\n']);
    expect(target.syncFlushes()).toBe(1);
    // Closed, it writes what is left and no longer listens for the exit.
    chunks.write('after\n');
    chunks.close();
    expect(target.chunks).toEqual(['last words\n', 'after\n']);
    expect(process.listeners('exit')).not.toContain(added[0]);
  });
});
