// A GET (or a POST with a small body) for the gateway's outgoing reads of URLs that merchants or
// operators typed (mutation feeds), held to the webhooks' rules: the SSRF guard sees every address
// connected to (ssrf-guard.ts), and a redirect is never followed, whatever the method (the 3xx is the
// answer, which the caller treats as a failure): so a POST is never turned into a GET by a 301/302/303,
// nor sent again with its credentials to wherever a 307/308 points. The caller bounds the time (its
// signal) and the answer's size (it reads the streamed body). Built on node:http because the global
// fetch offers no hook on the address it connects to.
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import type { IpNetwork } from '../domain/ip-networks.js';
import { assertLiteralAllowed, bareHost, guardedLookup } from './ssrf-guard.js';

export interface GuardedGetInit {
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface GuardedRequestInit extends GuardedGetInit {
  method: 'GET' | 'POST';
  /** Sent as is (a POST's form or JSON); its Content-Type is the caller's header. */
  body?: string | null;
}

/** The largest body a guarded request sends: these are small forms carrying an account's login. */
export const MAX_REQUEST_BODY_BYTES = 16 * 1024;

/** Statuses whose Response may not carry a body. */
const NO_BODY: ReadonlySet<number> = new Set([101, 204, 205, 304]);

/**
 * GETs `rawUrl` and resolves with the answer as a fetch Response (its body streamed), whatever its
 * status. Rejects with SsrfRefusedError for a refused address, with the signal's reason when it aborts.
 */
export function guardedGet(rawUrl: string, init: GuardedGetInit, allow: readonly IpNetwork[]): Promise<Response> {
  return guardedRequest(rawUrl, { ...init, method: 'GET' }, allow);
}

/**
 * guardedGet with a method and a body: the same address checks, no redirect followed, the answer
 * resolved whatever its status. A GET carries no body; a body larger than MAX_REQUEST_BODY_BYTES is
 * refused before anything is sent.
 */
export function guardedRequest(
  rawUrl: string,
  init: GuardedRequestInit,
  allow: readonly IpNetwork[],
): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const url = new URL(rawUrl);
    const body = init.body === undefined || init.body === null ? null : Buffer.from(init.body, 'utf8');
    if (body !== null && init.method === 'GET') throw new Error('a GET carries no body');
    if (body !== null && body.byteLength > MAX_REQUEST_BODY_BYTES)
      throw new Error(`the request body is larger than ${MAX_REQUEST_BODY_BYTES} bytes`);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported protocol ${url.protocol}`);
    assertLiteralAllowed(url.hostname, allow);
    init.signal?.throwIfAborted();
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request({
      protocol: url.protocol,
      hostname: bareHost(url.hostname),
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: init.method,
      headers: body === null ? (init.headers ?? {}) : { ...init.headers, 'content-length': String(body.byteLength) },
      // A fresh connection each time: no pooled socket outlives the address check that opened it.
      agent: false,
      lookup: guardedLookup(allow),
    });
    const abort = () => req.destroy(init.signal?.reason instanceof Error ? init.signal.reason : new Error('aborted'));
    init.signal?.addEventListener('abort', abort, { once: true });
    req.once('close', () => init.signal?.removeEventListener('abort', abort));
    req.on('error', reject);
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 599) {
        res.destroy();
        reject(new Error(`unexpected HTTP status ${status}`));
        return;
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
      }
      const withoutBody = NO_BODY.has(status);
      if (withoutBody) res.destroy();
      resolve(
        new Response(withoutBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, headers }),
      );
    });
    req.end(body ?? undefined);
  });
}
