// The server's timeouts are settings, and they close what they should: a client that stops halfway
// through its headers or its body, and a keep-alive connection left idle. A real gateway process,
// spoken to over raw sockets.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../helpers/context.js';
import { rawRequest } from '../helpers/http-assertions.js';
import { startGateway, type GatewayProcess } from '../helpers/processes.js';

let dir: string;
let drop: () => Promise<void>;
let gateway: GatewayProcess;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'qg-timeouts-'));
  const fresh = await freshDatabaseUrl(dir);
  drop = fresh.drop;
  gateway = await startGateway({
    DATABASE_URL: fresh.url,
    DEMO_MERCHANT: 'false',
    HTTP_HEADERS_TIMEOUT_MS: '500',
    HTTP_REQUEST_TIMEOUT_MS: '1000',
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
  });
  port = Number(new URL(gateway.url).port);
}, 120_000);

afterAll(async () => {
  await gateway?.stop('SIGKILL');
  await drop?.();
  rmSync(dir, { recursive: true, force: true });
});

/** Sends `data` on a fresh connection and waits (at most 8 s) for the server to close it. */
async function timed(data: string) {
  const started = Date.now();
  const res = await rawRequest(port, data, 8000);
  return { ...res, ms: Date.now() - started };
}

describe('server timeouts', () => {
  it('half a header line: 408 request_timeout and the connection closed after HTTP_HEADERS_TIMEOUT_MS', async () => {
    const res = await timed('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slo');
    expect(res.closed).toBe(true);
    expect(res.status).toBe(408);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.body).error.code).toBe('request_timeout');
    // Cut by the header timeout (500 ms, checked every 500 ms here), not by anything sooner or later.
    expect(res.ms).toBeGreaterThanOrEqual(450);
    expect(res.ms).toBeLessThan(5000);
  });

  it('a body that stops arriving: 408 after HTTP_REQUEST_TIMEOUT_MS', async () => {
    const res = await timed('POST /api/payment-gateway/cqris HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"amount":');
    expect(res.closed).toBe(true);
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body).error.code).toBe('request_timeout');
    expect(res.ms).toBeGreaterThanOrEqual(950);
    expect(res.ms).toBeLessThan(5000);
  });

  it('an idle keep-alive connection: told its time in Keep-Alive, closed once it has passed', async () => {
    const res = await timed('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(res.status).toBe(200);
    expect(res.headers.connection).toBe('keep-alive');
    expect(res.headers['keep-alive']).toBe('timeout=1');
    expect(res.closed).toBe(true);
    // Node keeps it a second past the time it announced, so a client that reuses it just in time is safe.
    expect(res.ms).toBeGreaterThanOrEqual(950);
    expect(res.ms).toBeLessThan(5000);
  });
});
