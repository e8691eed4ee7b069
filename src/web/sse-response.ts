import type { ServerResponse } from 'node:http';

/**
 * A server-sent-events response held open: the headers every stream sends, closing when the peer goes,
 * and writes that stop once closed. The checkout page's status stream and the soundbox's event stream
 * add what they send on top.
 */
export abstract class SseResponse {
  private raw: ServerResponse | null = null;
  private closed = false;

  constructor(private readonly onClose: () => void) {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** Writes the headers; the response stays open until close(). `opened` runs once it can be written to. */
  protected openResponse(raw: ServerResponse, requestId: string): void {
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
    // A peer that went away ends the stream, whether noticed by the socket closing or a failed write.
    raw.on('close', () => this.close());
    raw.on('error', () => this.close());
    this.opened();
  }

  /** Called once the response is open. */
  protected opened(): void {}

  /** Whether writes reach the peer: open and not closed. */
  protected get writable(): boolean {
    return this.raw !== null && !this.closed;
  }

  /** Writes raw event-stream text; nothing before open or after close. */
  protected write(text: string): void {
    if (this.raw && !this.closed) this.raw.write(text);
  }

  /**
   * A comment line (ignored by EventSource): keeps proxies from cutting an idle stream, and a write to
   * a peer that vanished fails sooner or later, which closes the stream and frees its slot.
   */
  heartbeat(): void {
    this.write(': heartbeat\n\n');
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose();
    if (this.raw && !this.raw.writableEnded) this.raw.end();
  }
}
