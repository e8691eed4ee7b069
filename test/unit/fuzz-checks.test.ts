import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { problemsOf } from '../fuzz/checks.js';
import type { FuzzRequest } from '../fuzz/generators.js';
import { send, type FuzzAnswer } from '../fuzz/send.js';

// issue 23, the hostile-input suite: the fuzz's own checks see what they must, or a clean run proves nothing.
const request = (path = '/dashboard/x', body: string | null = null): FuzzRequest => ({
  route: 'GET /dashboard/x',
  identity: 'anonymous',
  method: 'GET',
  path,
  headers: {},
  body: body === null ? null : Buffer.from(body),
  bodyKind: 'none',
});
const answer = (
  status: number,
  body: string,
  headers: http.IncomingHttpHeaders = { 'content-type': 'text/html' },
): FuzzAnswer => ({
  status,
  headers,
  body,
  error: null,
});

describe('the fuzz checks', () => {
  it('flag a 5xx, except a 503 with Retry-After', () => {
    expect(problemsOf(request(), answer(500, 'oops'))).toEqual(['500 answer: "oops"']);
    expect(problemsOf(request(), answer(503, 'busy'))).toHaveLength(1);
    expect(problemsOf(request(), answer(503, 'busy', { 'content-type': 'text/html', 'retry-after': '1' }))).toEqual([]);
    expect(problemsOf(request(), answer(404, 'not here'))).toEqual([]);
  });

  it('flag stack frames, internal paths and database errors in an answer', () => {
    const leaks = [
      'Error: x\n    at Object.<anonymous> (/opt/app/dist/x.js:10:5)',
      'failed at async handler (file:///srv/app/y.js:3:9)',
      'Error: y\\n    at /srv/app/z.js:7:1',
      'see /work/main/README',
      'node_modules/fastify/lib/x.js',
      'in src/http/app.ts',
      'app.ts:120',
      'SQLITE_CONSTRAINT: UNIQUE constraint failed',
      'duplicate key value violates unique constraint "x"',
      'root:x:0:0:root:/root:/bin/bash',
    ];
    for (const leak of leaks) expect(problemsOf(request(), answer(400, `<p>${leak}</p>`)), leak).not.toEqual([]);
    expect(problemsOf(request(), answer(200, '<img src="/dashboard/assets/x.png"> paid at 12:00'))).toEqual([]);
  });

  it('let an answer echo what the request itself sent', () => {
    expect(problemsOf(request('/dashboard/x?next=src/a.ts:1'), answer(400, 'bad next: src/a.ts:1'))).toEqual([]);
  });

  it('hold API answers to the envelope', () => {
    const ok = {
      'content-type': 'application/json',
      'x-api-version': '1.0.0',
      'cache-control': 'no-store',
      'x-request-id': 'req_1',
    };
    const api = request('/api/payment-gateway/cstatus');
    expect(
      problemsOf(
        api,
        answer(404, '{"success":false,"error":{"code":"not_found","message":"no","request_id":"req_1"}}', ok),
      ),
    ).toEqual([]);
    expect(problemsOf(api, answer(404, '<html>not found</html>', { ...ok, 'content-type': 'text/html' }))).toEqual([
      'not JSON: text/html',
    ]);
  });
});

describe('sending a fuzz request', () => {
  let server: http.Server | null = null;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = null;
  });
  const serve = async (handler: http.RequestListener) => {
    server = http.createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  };

  it('reports a dropped connection and a server that never answers', async () => {
    const dropping = await serve((req) => req.socket.destroy());
    expect((await send(dropping, request())).error).toMatch(/^connection dropped/);
    await new Promise((resolve) => server!.close(resolve));
    const silent = await serve(() => {});
    expect((await send(silent, request(), 300)).error).toBe('no answer in 300 ms');
  });

  it('reads an answer, and judges an event stream by its start', async () => {
    const port = await serve((req, res) => {
      if (req.url === '/events') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: status\n\n');
        return;
      }
      res.end('hello');
    });
    expect(await send(port, request('/plain'))).toMatchObject({ status: 200, body: 'hello', error: null });
    expect(await send(port, request('/events'))).toMatchObject({ status: 200, body: 'event: status\n\n', error: null });
  });
});
