// A real HTTP webhook receiver on loopback (node:http), recording every request as it arrived.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as sent, as text. */
  body: string;
  /** Date.now() when the request was complete. */
  at: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answer after this many milliseconds. */
  delayMs?: number;
  /** Never answer (the socket is destroyed when the receiver closes). */
  hang?: boolean;
}

export type Responder = (request: ReceivedRequest, index: number) => Reply;

export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  respond: Responder = () => ({ status: 200, body: 'ok' });
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  /** Connections accepted, whether or not a request followed. */
  connections = 0;

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const received: ReceivedRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        this.requests.push(received);
        const reply = this.respond(received, this.requests.length - 1);
        if (reply.hang) return;
        const send = (r: ServerResponse) => r.writeHead(reply.status, reply.headers ?? {}).end(reply.body ?? '');
        if (reply.delayMs) setTimeout(() => send(res), reply.delayMs);
        else send(res);
      });
    });
    this.server.on('connection', (socket: Socket) => {
      this.connections += 1;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async start(port = 0): Promise<Receiver> {
    const receiver = new Receiver();
    await new Promise<void>((resolve, reject) => {
      receiver.server.once('error', reject);
      receiver.server.listen(port, '127.0.0.1', () => resolve());
    });
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Replies in turn from a list (the last one repeats). */
  sequence(...replies: Reply[]): void {
    this.respond = (_req, index) => replies[Math.min(index, replies.length - 1)]!;
  }

  eventIds(): string[] {
    return this.requests.map((r) => String(r.headers['x-event-id']));
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
