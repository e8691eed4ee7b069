// The client's parsers, by property: its server-sent-events reader and its Retry-After reading.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readEvents, type ServerSentEvent } from '../../packages/client/src/event-stream.js';
import { parseRetryAfter } from '../../packages/client/src/transport.js';

/** A body that delivers `text` as UTF-8 cut at the given byte offsets (mid-character and mid-CRLF too). */
function bodyOf(text: string, cuts: number[]): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const p of [...points, bytes.length]) {
    if (p > from) pieces.push(bytes.subarray(from, p));
    from = Math.max(from, p);
  }
  return new ReadableStream({
    pull(controller) {
      const next = pieces.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
}

async function collect(
  body: ReadableStream<Uint8Array>,
  signal = new AbortController().signal,
): Promise<ServerSentEvent[]> {
  const out: ServerSentEvent[] = [];
  for await (const e of readEvents(body, signal)) out.push(e);
  return out;
}

const lineText = fc
  .string({ unit: fc.constantFrom('a', 'b', ' ', ':', 'é', '{', '"', '1', '世') })
  .filter((s) => !s.startsWith(' '));
const anEvent = fc.record({
  event: fc.constantFrom('status', 'message', 'ping'),
  data: fc.array(lineText, { minLength: 1, maxLength: 3 }),
});

describe('readEvents', () => {
  it('yields exactly the events sent, whatever the line endings, comments and chunking', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(anEvent, { maxLength: 6 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.array(fc.nat(400), { maxLength: 12 }),
        fc.boolean(),
        async (events, eol, cuts, heartbeats) => {
          const text = events
            .map(
              (e) =>
                `${heartbeats ? `: heartbeat${eol}` : ''}event: ${e.event}${eol}${e.data.map((d) => `data: ${d}`).join(eol)}${eol}${eol}`,
            )
            .join('');
          const got = await collect(bodyOf(text, cuts));
          expect(got).toEqual(events.map((e) => ({ event: e.event, data: e.data.join('\n') })));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('drops an event the stream ends in the middle of, and names a nameless one message', async () => {
    expect(await collect(bodyOf('data: one\n\nevent: status\ndata: cut', []))).toEqual([
      { event: 'message', data: 'one' },
    ]);
  });

  it("ends with the signal's reason when it aborts mid-stream", async () => {
    const controller = new AbortController();
    const never = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(new TextEncoder().encode('event: status\ndata: {}\n\n')),
    });
    const seen: ServerSentEvent[] = [];
    const reading = (async () => {
      for await (const e of readEvents(never, controller.signal)) {
        seen.push(e);
        controller.abort(new Error('stop'));
      }
    })();
    await expect(reading).rejects.toThrow('stop');
    expect(seen).toHaveLength(1);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds as given, and an HTTP date as the whole seconds until it', () => {
    fc.assert(
      fc.property(fc.nat(10_000_000), fc.integer({ min: 0, max: 86_400 }), (seconds, ahead) => {
        expect(parseRetryAfter(String(seconds))).toBe(seconds);
        const now = Date.UTC(2026, 10, 24, 3, 0, 0);
        expect(parseRetryAfter(new Date(now + ahead * 1000).toUTCString(), now)).toBe(ahead);
      }),
    );
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(new Date(Date.UTC(2000, 0, 1)).toUTCString())).toBe(0);
  });
});
