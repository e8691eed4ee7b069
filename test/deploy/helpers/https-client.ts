// HTTPS to the stack's Caddy as a browser on the internet would reach it, without DNS: the connection goes
// to 127.0.0.1 and the published port, the test domain is the SNI and Host, and only the CA given (Caddy's
// internal root, copied out of its data volume) is trusted.
import { request as plainRequest } from 'node:http';
import { request } from 'node:https';

export interface HttpsTarget {
  domain: string;
  port: number;
  /** PEM of the CA to trust (and nothing else). */
  ca: string;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The server's certificate chain was verified against the CA for the domain. */
  authorized: boolean;
}

export function https(
  target: HttpsTarget,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        servername: target.domain,
        ca: target.ca,
        method,
        path,
        headers: { host: target.domain, ...options.headers },
        agent: false,
        timeout: 30_000,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            authorized: (res.socket as import('node:tls').TLSSocket).authorized,
          }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A plain-HTTP GET to Caddy's published HTTP port with the domain as Host (fetch would not send that Host). */
export function plainHttpGet(port: number, domain: string, path: string): Promise<Omit<Reply, 'authorized'>> {
  return new Promise((resolve, reject) => {
    const req = plainRequest(
      { host: '127.0.0.1', port, path, headers: { host: domain }, agent: false, timeout: 30_000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${path}: no answer in 30 s`)));
    req.on('error', reject);
    req.end();
  });
}

/** Retries a GET until Caddy has its certificate and the gateway answers 200 (both start after `up -d`). */
export async function waitForHttps(target: HttpsTarget, path = '/readyz', timeoutMs = 120_000): Promise<Reply> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const reply = await https(target, 'GET', path);
      if (reply.status === 200) return reply;
      last = new Error(`${path} answered ${reply.status}: ${reply.body.slice(0, 300)}`);
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`no 200 from https://${target.domain}${path} in ${timeoutMs} ms: ${String(last)}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Cookies as a browser keeps them: name=value from Set-Cookie, gone when emptied or expired. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(reply: Reply): void {
    const set = reply.headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair = '', ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const gone = value === '' || attrs.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (gone) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}
