import type { ServerResponse } from 'node:http';
import type { StatusSnapshot } from '../services/transactions/status-watch.js';

/**
 * One checkout page's server-sent-events stream. It sends the status whenever it differs from the one
 * last sent and ends after the first final one: any status but `pending` (paid, expired, cancelled, or
 * whatever final status comes later) never changes again, so there is nothing left to wait for.
 * Snapshots may arrive before the response is opened; the latest is kept and sent on open.
 */
export class StatusStream {
  private raw: ServerResponse | null = null;
  private latest: StatusSnapshot | null = null;
  private sent: string | null = null;
  private closed = false;

  constructor(private readonly onClose: () => void) {}

  get isClosed(): boolean {
    return this.closed;
  }

  offer(snapshot: StatusSnapshot): void {
    // A status only ever leaves pending: a read that started earlier and answered later must not send
    // `pending` after a final status.
    if (this.closed || (this.latest && this.latest.status !== 'pending')) return;
    this.latest = snapshot;
    this.flush();
  }

  /** Writes the headers and the status so far; the response stays open until close(). */
  open(raw: ServerResponse, requestId: string): void {
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
    this.flush();
  }

  /**
   * A comment line (ignored by EventSource): keeps proxies from cutting an idle stream, and a write to
   * a peer that vanished fails sooner or later, which closes the stream and frees its slot.
   */
  heartbeat(): void {
    if (this.raw && !this.closed) this.raw.write(': heartbeat\n\n');
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose();
    if (this.raw && !this.raw.writableEnded) this.raw.end();
  }

  private flush(): void {
    if (!this.raw || !this.latest || this.closed) return;
    const { status, paid_late } = this.latest;
    if (status !== this.sent) {
      this.raw.write(`event: status\ndata: ${JSON.stringify({ status, paid_late })}\n\n`);
      this.sent = status;
    }
    if (status !== 'pending') this.close();
  }
}
