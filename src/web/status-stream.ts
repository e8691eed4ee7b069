import type { ServerResponse } from 'node:http';
import type { StatusSnapshot } from '../services/transactions/status-watch.js';
import { SseResponse } from './sse-response.js';

/**
 * One checkout page's server-sent-events stream. It sends the status whenever it differs from the one
 * last sent and ends after the first final one: any status but `pending` (paid, expired, cancelled, or
 * whatever final status comes later) never changes again, so there is nothing left to wait for.
 * Snapshots may arrive before the response is opened; the latest is kept and sent on open.
 */
export class StatusStream extends SseResponse {
  private latest: StatusSnapshot | null = null;
  private sent: string | null = null;

  offer(snapshot: StatusSnapshot): void {
    // A status only ever leaves pending: a read that started earlier and answered later must not send
    // `pending` after a final status.
    if (this.isClosed || (this.latest && this.latest.status !== 'pending')) return;
    this.latest = snapshot;
    this.flush();
  }

  /** Writes the headers and the status so far; the response stays open until close(). */
  open(raw: ServerResponse, requestId: string): void {
    this.openResponse(raw, requestId);
  }

  protected override opened(): void {
    this.flush();
  }

  private flush(): void {
    if (!this.writable || !this.latest) return;
    const { status, paid_late } = this.latest;
    if (status !== this.sent) {
      this.write(`event: status\ndata: ${JSON.stringify({ status, paid_late })}\n\n`);
      this.sent = status;
    }
    if (status !== 'pending') this.close();
  }
}
