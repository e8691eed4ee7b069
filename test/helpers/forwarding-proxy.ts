// A reverse proxy on loopback that does what the nginx recipe in docs/deploying.md does with X-Forwarded-For
// (`proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;`): it keeps whatever the client sent and
// appends the address the client connected from. Clients can pick their own address on loopback
// (127.0.0.2, 127.0.0.3, ...), so a test can be several real clients.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ForwardingProxy {
  url: string;
  close(): Promise<void>;
}

/** `port`: listen there (a proxy closed and started again on its port, as a server that went away and came back); any free one by default. */
export async function startForwardingProxy(targetUrl: string, port = 0): Promise<ForwardingProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const headers: IncomingHttpHeaders = { ...req.headers };
    const peer = req.socket.remoteAddress ?? '';
    const sent = req.headers['x-forwarded-for'];
    // $proxy_add_x_forwarded_for: "the client's header, a comma and a space, $remote_addr", or just
    // $remote_addr when the client sent none.
    headers['x-forwarded-for'] = sent ? `${sent}, ${peer}` : peer;
    headers['x-forwarded-proto'] = 'http';
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface PlainResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request from a chosen loopback address (`from`), with no connection reuse. */
export function requestFrom(
  from: string,
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<PlainResponse> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        localAddress: from,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
