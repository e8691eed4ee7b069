// A real HTTP proxy on loopback in front of a gateway, which can fail chosen requests the ways networks
// and load balancers do: a dropped connection before or after the gateway acted, an answer of its own
// (a 503 with Retry-After, a proxy's HTML error page), or none at all. Everything else is forwarded.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Fault =
  | { kind: 'forward' }
  /** The connection is cut before the request reaches the gateway. */
  | { kind: 'drop-before' }
  /** The gateway gets the request and acts; its answer is lost with the connection. */
  | { kind: 'drop-after' }
  | { kind: 'answer'; status: number; headers?: Record<string, string>; body: string }
  /** Never answers (until the proxy closes). */
  | { kind: 'hang' };

export interface SeenRequest {
  method: string;
  path: string;
  fault: Fault['kind'];
}

export class FaultProxy {
  readonly seen: SeenRequest[] = [];
  /** Chooses the fault for each request; forward by default. */
  plan: (method: string, path: string, index: number) => Fault = () => ({ kind: 'forward' });
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly target: URL,
  ) {}

  static async start(targetUrl: string): Promise<FaultProxy> {
    const server = createServer();
    const proxy = new FaultProxy(server, new URL(targetUrl));
    server.on('connection', (socket) => {
      proxy.sockets.add(socket);
      socket.on('close', () => proxy.sockets.delete(socket));
    });
    server.on('request', (req, res) => {
      const path = req.url ?? '/';
      const fault = proxy.plan(req.method ?? 'GET', path, proxy.seen.length);
      proxy.seen.push({ method: req.method ?? 'GET', path, fault: fault.kind });
      if (fault.kind === 'drop-before') return void req.socket.destroy();
      if (fault.kind === 'hang') return;
      if (fault.kind === 'answer') return void res.writeHead(fault.status, fault.headers ?? {}).end(fault.body);
      proxy.forward(req, (upstream, body) => {
        if (fault.kind === 'drop-after') return void req.socket.destroy();
        res.writeHead(upstream.statusCode ?? 502, upstream.headers).end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Requests whose path starts with this. */
  count(prefix: string): number {
    return this.seen.filter((r) => r.path.startsWith(prefix)).length;
  }

  private forward(req: IncomingMessage, done: (upstream: IncomingMessage, body: Buffer) => void): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const upstreamRequest = httpRequest(
        {
          host: this.target.hostname,
          port: this.target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: this.target.host },
        },
        (upstream) => {
          const body: Buffer[] = [];
          upstream.on('data', (c: Buffer) => body.push(c));
          upstream.on('end', () => done(upstream, Buffer.concat(body)));
        },
      );
      upstreamRequest.on('error', () => req.socket.destroy());
      upstreamRequest.end(Buffer.concat(chunks));
    });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
