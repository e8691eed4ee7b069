// The server's timeouts are settings, and they close what they should: a client that stops halfway
// through its headers or its body, and a keep-alive connection left idle. A real gateway process,
// spoken to over raw sockets.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../../helpers/context.js';
import { rawRequest } from '../../helpers/http-assertions.js';
import { startGateway, type GatewayProcess } from '../../helpers/processes.js';

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
    // Six times the header timeout: a cut within the headers is known to be the header timeout's by the
    // order of events (below), not by a bound on milliseconds.
    HTTP_REQUEST_TIMEOUT_MS: '3000',
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
  });
  port = Number(new URL(gateway.url).port);
}, 120_000);

afterAll(async () => {
  await gateway?.stop('SIGKILL');
  await drop?.();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Sends `data` on a fresh connection and waits for the server to close it (the client gives up after
 * 8 s, which leaves no status: a timeout that never fires fails the test without a bound on its time).
 * `ms` is only ever held to a lower bound, which a loaded machine cannot break.
 */
async function timed(data: string) {
  const started = Date.now();
  const res = await rawRequest(port, data, 8000);
  return { ...res, ms: Date.now() - started };
}

const BODY_STALL =
  'POST /api/payment-gateway/cqris HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"amount":';

describe('server timeouts', () => {
  it('half a header line: 408 request_timeout and the connection closed after HTTP_HEADERS_TIMEOUT_MS', async () => {
    const res = await timed('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slo');
    expect(res.closed).toBe(true);
    expect(res.status).toBe(408);
    expect(res.headers.connection).toBe('close');
    expect(JSON.parse(res.body).error.code).toBe('request_timeout');
    // Not sooner than the header timeout.
    expect(res.ms).toBeGreaterThanOrEqual(450);
    // The one upper bound kept, because nothing else tells the two apart: Node reports the header timeout
    // and the request timeout alike (ERR_HTTP_REQUEST_TIMEOUT, through the same clientError). The request
    // timeout is 3 s, six times the header timeout, so only a server loop stalled for 2.5 s could fail this.
    expect(res.ms).toBeLessThan(3000);
  });

  it('a body that stops arriving: 408 after HTTP_REQUEST_TIMEOUT_MS', async () => {
    // The headers are complete, so the header timeout no longer applies: only the request timeout can cut it.
    const res = await timed(BODY_STALL);
    expect(res.closed).toBe(true);
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body).error.code).toBe('request_timeout');
    expect(res.ms).toBeGreaterThanOrEqual(2950);
  });

  it('an idle keep-alive connection: told its time in Keep-Alive, closed once it has passed', async () => {
    const res = await timed('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(res.status).toBe(200);
    expect(res.headers.connection).toBe('keep-alive');
    expect(res.headers['keep-alive']).toBe('timeout=1');
    expect(res.closed).toBe(true);
    // Not before the time it announced (Node keeps it a second longer, so a client that reuses it just in
    // time is safe). An idle connection has no request for the header or request timeout to cut.
    expect(res.ms).toBeGreaterThanOrEqual(950);
  });
});
