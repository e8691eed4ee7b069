// One HTTP POST of a webhook, on node:http/https directly: redirects are never followed (a 3xx is just
// a failed attempt), the SSRF guard sees every address connected to, and one timer bounds the whole
// exchange (connect, headers and the slice of body that is kept).
import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import type { IpNetwork } from '../domain/ip-networks.js';
import { assertLiteralAllowed, bareHost, guardedLookup } from './ssrf-guard.js';

/** At most this much of a receiver's answer is kept with the attempt. */
export const RESPONSE_BODY_LIMIT = 2048;

export interface PostRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allow: readonly IpNetwork[];
  /** How much of the answer to keep; RESPONSE_BODY_LIMIT unless said (a Bot API list needs more). */
  bodyLimit?: number;
}

export interface PostResult {
  statusCode: number | null;
  /** The first RESPONSE_BODY_LIMIT bytes of the answer, as text. */
  responseBody: string | null;
  retryAfter: string | null;
  error: string | null;
  durationMs: number;
}

// Read once: both src/net and dist/net sit two levels below the package root.
export const USER_AGENT = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return `qris-gateway/${pkg.version ?? '0.0.0'}`;
  } catch {
    return 'qris-gateway/0.0.0';
  }
})();

/** Never rejects: every outcome, refusal and timeout included, is a result to record. */
export function postWebhook(request: PostRequest): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: Omit<PostResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const failed = (err: unknown) =>
      finish({ statusCode: null, responseBody: null, retryAfter: null, error: describe(err) });

    let url: URL;
    try {
      url = new URL(request.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new Error(`unsupported protocol ${url.protocol}`);
      assertLiteralAllowed(url.hostname, request.allow);
    } catch (err) {
      failed(err);
      return;
    }

    const client = url.protocol === 'https:' ? https : http;
    let req: http.ClientRequest;
    try {
      req = client.request({
        protocol: url.protocol,
        hostname: bareHost(url.hostname),
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
        // A fresh connection per delivery: no pooled socket outlives the address check that opened it.
        agent: false,
        // TLS certificates are verified (the default) against the host name, not the resolved address.
        lookup: guardedLookup(request.allow),
      });
    } catch (err) {
      // Invalid options throw synchronously; they are a failed attempt like any other.
      failed(err);
      return;
    }
    timer = setTimeout(() => req.destroy(new Error(`timed out after ${request.timeoutMs} ms`)), request.timeoutMs);

    req.on('error', failed);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const limit = request.bodyLimit ?? RESPONSE_BODY_LIMIT;
      const done = () => {
        const kept = Buffer.concat(chunks).subarray(0, limit).toString('utf8');
        finish({
          statusCode: res.statusCode ?? null,
          responseBody: kept,
          retryAfter: header(res.headers['retry-after']),
          error: null,
        });
        // The rest of a long answer is of no interest; closing the socket frees it at once.
        res.destroy();
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= limit) done();
      });
      res.on('end', done);
      // A receiver that answers with a status and then breaks the connection still answered.
      res.on('error', done);
      res.on('aborted', done);
    });
    req.end(request.body);
  });
}

function header(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  // Node's connection errors carry the useful part in the code (ECONNREFUSED, ENOTFOUND, ...).
  return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
}
