// A client of the checkout page's server-sent-events stream that keeps everything it receives, with the
// time each piece arrived, and can tell when the server ended the response.
import { get, type IncomingHttpHeaders } from 'node:http';

export interface EventStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** Everything received so far. */
  readonly text: string;
  /** Each piece of the body as it arrived, with Date.now() at its arrival. */
  readonly pieces: ReadonlyArray<{ at: number; text: string }>;
  /** True once the server has ended the response (not when close() was called). */
  readonly ended: boolean;
  /** Resolves once the received text matches, or rejects after timeoutMs. */
  waitFor(match: (text: string) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  /** Resolves once the server has ended the response, or rejects after timeoutMs. */
  waitForEnd(timeoutMs?: number): Promise<void>;
  /** Hangs up, as a browser leaving the page does. */
  close(): void;
}

/** The `status` events in a stream's text, in order. */
export function statusEvents(text: string): Array<{ status: string; paid_late: boolean }> {
  return [...text.matchAll(/^event: status\ndata: (.*)$/gm)].map(
    (m) => JSON.parse(m[1]!) as { status: string; paid_late: boolean },
  );
}

export function openEventStream(url: string, headers: Record<string, string> = {}): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    // agent: false: one connection per stream, as separate browsers would hold.
    const req = get(url, { agent: false, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      let text = '';
      let ended = false;
      const pieces: Array<{ at: number; text: string }> = [];
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        pieces.push({ at: Date.now(), text: chunk });
      });
      res.on('end', () => (ended = true));
      res.on('error', () => {});
      const until = async (done: () => boolean, timeoutMs: number, what: string) => {
        const deadline = Date.now() + timeoutMs;
        while (!done()) {
          if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; received so far:\n${text}`);
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        get text() {
          return text;
        },
        pieces,
        get ended() {
          return ended;
        },
        waitFor: (match, timeoutMs = 5000, what = 'the stream') => until(() => match(text), timeoutMs, what),
        waitForEnd: (timeoutMs = 5000) => until(() => ended, timeoutMs, 'the end of the stream'),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
  });
}
