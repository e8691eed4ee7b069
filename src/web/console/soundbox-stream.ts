import type { ServerResponse } from 'node:http';

/**
 * One soundbox's server-sent-events stream (issue 27, section 2). Unlike a checkout page's stream it has
 * no last status: it stays open until the page leaves, the server closes or it reaches its age, and the
 * page reconnects after its last event's id. Writes before open() are an error of the caller.
 */
export class SoundboxStream {
  private raw: ServerResponse | null = null;
  private closed = false;

  constructor(
    readonly openedAt: number,
    private readonly onClose: () => void,
  ) {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** Writes the headers; the response stays open until close(). */
  open(raw: ServerResponse, requestId: string, retryMs: number): void {
    if (this.closed) return void raw.end();
    this.raw = raw;
    raw.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      // Proxies such as nginx would otherwise buffer the events.
      'X-Accel-Buffering': 'no',
      'X-Request-Id': requestId,
    });
    raw.on('close', () => this.close());
    raw.on('error', () => this.close());
    // How long EventSource waits before it reconnects by itself.
    raw.write(`retry: ${retryMs}\n\n`);
  }

  /** One event; `id` is where the stream stands after it (the page's Last-Event-ID). */
  send(event: string, data: unknown, id?: string): void {
    if (!this.raw || this.closed) return;
    this.raw.write(`event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose();
    if (this.raw && !this.raw.writableEnded) this.raw.end();
  }
}
