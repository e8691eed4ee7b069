import type { ServerResponse } from 'node:http';
import { SseResponse } from '../sse-response.js';

/**
 * One soundbox's server-sent-events stream (issue 27, section 2). Unlike a checkout page's stream it has
 * no last status: it stays open until the page leaves, the server closes or it reaches its age, and the
 * page reconnects after its last event's id. Writes before open() go nowhere.
 */
export class SoundboxStream extends SseResponse {
  private retryMs = 0;

  constructor(
    readonly openedAt: number,
    onClose: () => void,
  ) {
    super(onClose);
  }

  /** Writes the headers; the response stays open until close(). */
  open(raw: ServerResponse, requestId: string, retryMs: number): void {
    this.retryMs = retryMs;
    this.openResponse(raw, requestId);
  }

  protected override opened(): void {
    // How long EventSource waits before it reconnects by itself.
    this.write(`retry: ${this.retryMs}\n\n`);
  }

  /** One event; `id` is where the stream stands after it (the page's Last-Event-ID). */
  send(event: string, data: unknown, id?: string): void {
    this.write(`event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`);
  }
}
