import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { createApiKey } from '../../../src/services/merchants/create-api-key.js';
import { revokeApiKey } from '../../../src/services/merchants/revoke-api-key.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import {
  expectCommonHeaders,
  expectError,
  listeningPort,
  rawRequest,
  REQUEST_ID_SHAPE,
} from '../../helpers/http-assertions.js';
import { CQRIS, CSTATUS } from '../../helpers/api.js';

describe('HTTP edges: envelope, headers, routing, limits, keys', () => {
  let t: TestApp;
  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
  const withKey = (headers: Record<string, string> = {}) => ({ 'x-api-key': t.testKey, ...headers });

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  describe('common headers and request ids', () => {
    it('success, 4xx, 404 and 405 responses all carry X-Api-Version, Cache-Control and X-Request-Id', async () => {
      const ok = await get(`${CQRIS}?amount=1500`, withKey());
      expect(ok.statusCode).toBe(200);
      expectCommonHeaders(ok);
      expect(ok.json().success).toBe(true);

      const bad = await get(`${CQRIS}?amount=abc`, withKey());
      expectError(bad, 400, 'invalid_amount', 'amount');

      expectError(await get('/api/payment-gateway/nothing-here'), 404, 'not_found');
      expectError(await t.app.inject({ method: 'DELETE', url: CQRIS }), 405, 'method_not_allowed');

      for (const url of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs/']) {
        const res = await get(url);
        expect(res.statusCode, url).toBe(200);
        expectCommonHeaders(res);
      }
      const png = await get(`/api/payment-gateway/qr/${ok.json().data.trxid}.png`);
      expect(png.statusCode).toBe(200);
      expect(png.headers['content-type']).toBe('image/png');
      expectCommonHeaders(png);
    });

    it('echoes a valid incoming X-Request-Id, on success and in error.request_id', async () => {
      const ok = await get('/healthz', { 'x-request-id': 'client-trace.01:AB_z' });
      expect(ok.headers['x-request-id']).toBe('client-trace.01:AB_z');

      const err = await get(`${CQRIS}?amount=1`, { 'x-request-id': 'order-42' });
      const body = expectError(err, 401, 'api_key_required', 'apikey');
      expect(body.error.request_id).toBe('order-42');

      const max = 'a'.repeat(64);
      expect((await get('/healthz', { 'x-request-id': max })).headers['x-request-id']).toBe(max);
    });

    it('replaces an invalid X-Request-Id with a generated one', async () => {
      const invalid = ['has space', 'semi;colon', 'a'.repeat(65), '<script>', 'ünïcode', 'a/b'];
      const seen = new Set<string>();
      for (const given of invalid) {
        const res = await get(`${CQRIS}?amount=1`, { 'x-request-id': given });
        const body = expectError(res, 401, 'api_key_required');
        expect(body.error.request_id).not.toBe(given);
        expect(body.error.request_id).toMatch(/^req_[0-9A-Za-z]{16}$/);
        seen.add(body.error.request_id);
      }
      expect(seen.size).toBe(invalid.length);
      const empty = await get('/healthz', { 'x-request-id': '' });
      expect(empty.headers['x-request-id']).toMatch(REQUEST_ID_SHAPE);
      expect(empty.headers['x-request-id']).not.toBe('');
    });

    it('generates distinct request ids when none is given', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 20; i++) ids.add(String((await get('/healthz')).headers['x-request-id']));
      expect(ids.size).toBe(20);
    });
  });

  describe('routing', () => {
    it('answers an unknown route with 404 not_found in the envelope', async () => {
      for (const url of [
        '/',
        '/api',
        '/api/payment-gateway',
        '/api/payment-gateway/cqris/extra',
        '/nope?apikey=x',
        '/api/api/api/payment-gateway/cqris',
      ]) {
        const body = expectError(await get(url), 404, 'not_found');
        expect(body.error.message).not.toContain('apikey=x');
      }
      expectError(await t.app.inject({ method: 'POST', url: '/nope', payload: { a: 1 } }), 404, 'not_found');
    });

    // 'answers a wrong method with 405 method_not_allowed and an Allow header' moved to route-common.test.ts.

    it('serves every route under /api and under /api/api', async () => {
      const a = await get(`/api/payment-gateway/cqris?amount=2100`, withKey());
      const b = await get(`/api/api/payment-gateway/cqris?amount=2100`, withKey());
      expect(a.statusCode).toBe(200);
      expect(b.statusCode).toBe(200);
      expect(a.json().data.trxid).not.toBe(b.json().data.trxid);
      for (const base of ['/api', '/api/api']) {
        const status = await get(`${base}/payment-gateway/cstatus?trxid=${a.json().data.trxid}`, withKey());
        expect(status.statusCode).toBe(200);
        expect(status.json().data.trxid).toBe(a.json().data.trxid);
        const qr = await get(`${base}/payment-gateway/qr/${b.json().data.trxid}.svg`);
        expect(qr.statusCode).toBe(200);
        expect(qr.headers['content-type']).toMatch(/^image\/svg\+xml/);
        const sim = await t.app.inject({
          method: 'POST',
          url: `${base}/payment-gateway/simulate?trxid=trx_doesnotexist`,
          headers: withKey(),
        });
        expectError(sim, 404, 'transaction_not_found', 'trxid');
      }
    });
  });

  describe('size and media-type limits', () => {
    const post = (payload: string, contentType: string): Promise<LightMyRequestResponse> =>
      t.app.inject({ method: 'POST', url: CQRIS, headers: withKey({ 'content-type': contentType }), payload });

    it('rejects a body over BODY_LIMIT_BYTES (16384) with 413 payload_too_large, and accepts one under it', async () => {
      const big = JSON.stringify({ amount: '3000', pad: 'x'.repeat(16_400) });
      expect(Buffer.byteLength(big)).toBeGreaterThan(16_384);
      expectError(await post(big, 'application/json'), 413, 'payload_too_large');
      expectError(
        await post(`amount=3000&pad=${'x'.repeat(16_400)}`, 'application/x-www-form-urlencoded'),
        413,
        'payload_too_large',
      );

      const fits = JSON.stringify({ amount: '3000', pad: 'x'.repeat(16_000) });
      expect(Buffer.byteLength(fits)).toBeLessThanOrEqual(16_384);
      const res = await post(fits, 'application/json');
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().data.amount).toBe(3000);
    });

    it('honours a configured BODY_LIMIT_BYTES', async () => {
      const small = await createTestApp({ BODY_LIMIT_BYTES: '1024' });
      try {
        const res = await small.app.inject({
          method: 'POST',
          url: CQRIS,
          headers: { 'x-api-key': small.testKey, 'content-type': 'application/json' },
          payload: JSON.stringify({ amount: '3000', pad: 'x'.repeat(1100) }),
        });
        expectError(res, 413, 'payload_too_large');
      } finally {
        await small.close();
      }
    });

    it('rejects a URL longer than MAX_URL_LENGTH (4096) with 414 uri_too_long, and accepts one of exactly 4096', async () => {
      const base = `${CSTATUS}?limit=5&pad=`;
      const exact = base + 'p'.repeat(4096 - base.length);
      expect(exact.length).toBe(4096);
      const ok = await get(exact, withKey());
      expect(ok.statusCode, ok.body).toBe(200);

      expectError(await get(`${exact}p`, withKey()), 414, 'uri_too_long');
      // Before authentication and routing: no key, unknown path, any method.
      expectError(await get(`/nowhere?x=${'y'.repeat(5000)}`), 414, 'uri_too_long');
      expectError(
        await t.app.inject({ method: 'POST', url: `${CQRIS}?x=${'y'.repeat(5000)}`, payload: { amount: '1' } }),
        414,
        'uri_too_long',
      );
    });

    it('rejects an unsupported content type with 415 unsupported_media_type', async () => {
      for (const type of [
        'application/xml',
        'text/plain',
        'multipart/form-data; boundary=x',
        'application/octet-stream',
        'image/png',
      ]) {
        expectError(await post('amount=3000', type), 415, 'unsupported_media_type');
      }
    });

    it('accepts JSON and form bodies', async () => {
      const json = await post(JSON.stringify({ amount: '3100' }), 'application/json; charset=utf-8');
      expect(json.statusCode, json.body).toBe(201);
      const form = await post('amount=3200', 'application/x-www-form-urlencoded');
      expect(form.statusCode, form.body).toBe(201);
      expect(form.json().data.amount).toBe(3200);
    });

    it('answers a malformed JSON body with 400 invalid_body', async () => {
      expectError(await post('{"amount":', 'application/json'), 400, 'invalid_body');
      expectError(await post('', 'application/json'), 400, 'invalid_body');
    });
  });

  describe('the API key', () => {
    it('missing: 401 api_key_required naming apikey', async () => {
      expectError(await get(`${CQRIS}?amount=1000`), 401, 'api_key_required', 'apikey');
      expectError(await get(`${CQRIS}?amount=1000&apikey=`), 401, 'api_key_required', 'apikey');
      expectError(await get(`${CQRIS}?amount=1000`, { authorization: 'Basic dXNlcjpwYXNz' }), 401, 'api_key_required');
    });

    it('unknown or malformed: 401 invalid_api_key', async () => {
      const unknown = `sk_test_${'A'.repeat(40)}`;
      const bad = [
        unknown,
        `sk_live_${'b'.repeat(40)}`,
        'not-a-key',
        'sk_test_short',
        t.testKey.replace('sk_test_', 'sk_live_'),
        t.testKey.slice(0, -1),
        `${t.testKey}x`,
        `sk_test_${'c'.repeat(300)}`,
        t.testKey.toUpperCase(),
      ];
      for (const key of bad) {
        expectError(await get(`${CQRIS}?amount=1000`, { 'x-api-key': key }), 401, 'invalid_api_key');
        expectError(await get(`${CQRIS}?amount=1000&apikey=${encodeURIComponent(key)}`), 401, 'invalid_api_key');
      }
    });

    it('revoked: 401 invalid_api_key', async () => {
      const created = await createApiKey(t.deps, { merchantId: t.merchant.id, mode: 'test' });
      expect((await get(`${CSTATUS}`, { 'x-api-key': created.key })).statusCode).toBe(200);
      await revokeApiKey(t.deps, created.id);
      expectError(await get(`${CSTATUS}`, { 'x-api-key': created.key }), 401, 'invalid_api_key');
      expectError(await get(`${CQRIS}?amount=1000&apikey=${created.key}`), 401, 'invalid_api_key');
      // The merchant's other keys still work.
      expect((await get(`${CSTATUS}`, withKey())).statusCode).toBe(200);
    });

    it('query and header both present and different: 400 api_key_mismatch; equal: accepted', async () => {
      expectError(
        await get(`${CQRIS}?amount=1000&apikey=${t.testKey}`, { 'x-api-key': t.liveKey }),
        400,
        'api_key_mismatch',
      );
      expectError(
        await get(`${CQRIS}?amount=1000&apikey=${t.testKey}`, { 'x-api-key': 'sk_test_other' }),
        400,
        'api_key_mismatch',
      );
      expectError(
        await get(`${CQRIS}?amount=1000&apikey=${t.testKey}`, { authorization: `Bearer ${t.liveKey}` }),
        400,
        'api_key_mismatch',
      );
      expectError(await get(`${CQRIS}?amount=1000&apikey=${t.testKey}&apikey=${t.liveKey}`), 400, 'api_key_mismatch');

      const same = await get(`${CQRIS}?amount=1001&apikey=${t.testKey}`, { 'x-api-key': t.testKey });
      expect(same.statusCode, same.body).toBe(200);
      expect(same.json().data.mode).toBe('test');
      const all = await get(`${CSTATUS}?apikey=${t.testKey}`, {
        'x-api-key': t.testKey,
        authorization: `Bearer ${t.testKey}`,
      });
      expect(all.statusCode, all.body).toBe(200);
    });

    it('Authorization: Bearer works alone', async () => {
      const res = await get(`${CQRIS}?amount=1002`, { authorization: `Bearer ${t.liveKey}` });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.mode).toBe('live');
      const lower = await get(`${CSTATUS}`, { authorization: `bearer ${t.testKey}` });
      expect(lower.statusCode).toBe(200);
    });
  });

  describe('documentation and operations', () => {
    it('/openapi.json is OpenAPI 3.1, version 1.0.0, documenting cqris and cstatus once', async () => {
      const res = await get('/openapi.json');
      expect(res.statusCode).toBe(200);
      expectCommonHeaders(res);
      const doc = res.json() as {
        openapi: string;
        info: { version: string };
        paths: Record<string, Record<string, unknown>>;
      };
      expect(doc.openapi).toMatch(/^3\.1\./);
      expect(doc.info.version).toBe('1.0.0');
      const cqris = doc.paths['/api/payment-gateway/cqris'];
      const cstatus = doc.paths['/api/payment-gateway/cstatus'];
      expect(cqris).toBeDefined();
      expect(cstatus).toBeDefined();
      expect(Object.keys(cqris!)).toEqual(expect.arrayContaining(['get', 'post']));
      expect(Object.keys(cstatus!)).toContain('get');
      // The deliveries a receiver gets, with the event schema the client's types come from.
      const webhooks = (doc as unknown as { webhooks: Record<string, any> }).webhooks;
      expect(Object.keys(webhooks).sort()).toEqual([
        'payment.unmatched',
        'refund.failed',
        'refund.succeeded',
        'transaction.cancelled',
        'transaction.expired',
        'transaction.paid',
      ]);
      const paidBody = webhooks['transaction.paid'].post.requestBody.content['application/json'].schema;
      expect(paidBody.properties.data.required).toEqual(
        expect.arrayContaining(['trxid', 'status', 'total_amount', 'paid_late']),
      );
      expect(webhooks['payment.unmatched'].post.parameters.map((p: { name: string }) => p.name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
        'x-signature',
      ]);
      // The 405 catch-alls and the /api/api duplicate mount stay out of the document.
      for (const method of ['put', 'patch', 'delete']) expect(cqris![method]).toBeUndefined();
      expect(cstatus!.post).toBeUndefined();
      expect(Object.keys(doc.paths).filter((p) => p.startsWith('/api/api'))).toEqual([]);
    });

    it('/docs serves an HTML page', async () => {
      let url = '/docs';
      let res = await get(url);
      for (let hops = 0; hops < 5 && res.statusCode >= 300 && res.statusCode < 400; hops++) {
        url = new URL(String(res.headers.location), `http://localhost${url}`).pathname;
        res = await get(url);
      }
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body.toLowerCase()).toContain('<html');
    });

    it('/healthz and /readyz answer 200', async () => {
      const health = await get('/healthz');
      expect(health.statusCode).toBe(200);
      expect(health.json()).toEqual({ success: true, data: { status: 'ok' } });
      const ready = await get('/readyz');
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ success: true, data: { status: 'ready', database: t.deps.db.dialect } });
    });

    it('/readyz answers 503 database_unavailable with Retry-After once the database is closed', async () => {
      const other = await createTestApp();
      try {
        expect((await other.app.inject({ url: '/readyz' })).statusCode).toBe(200);
        await other.database.close();
        const res = await other.app.inject({ url: '/readyz' });
        const body = expectError(res, 503, 'database_unavailable');
        expect(res.headers['retry-after']).toBe('2');
        expect(body.error.message).not.toMatch(/destroyed|kysely|sqlite/i);
        expect((await other.app.inject({ url: '/healthz' })).statusCode).toBe(200);
      } finally {
        await other.close();
      }
    });
  });
});

describe('rate limits', () => {
  it('the 6th request of one key in a minute is 429 rate_limited with Retry-After; another key still passes', async () => {
    const t = await createTestApp({ RATE_LIMIT_PER_MINUTE: '5' });
    try {
      const call = (key: string, url = CSTATUS, extra: Partial<InjectOptions> = {}) =>
        t.app.inject({ method: 'GET', url, headers: { 'x-api-key': key }, ...extra });
      for (let i = 1; i <= 5; i++) {
        // Both mounts share one budget per key.
        const res = await call(t.testKey, i % 2 === 0 ? '/api/api/payment-gateway/cstatus' : CSTATUS);
        expect(res.statusCode, `request ${i}`).toBe(200);
        expect(res.headers['ratelimit-limit']).toBe('5');
        expect(res.headers['ratelimit-remaining']).toBe(String(5 - i));
        const reset = Number(res.headers['ratelimit-reset']);
        expect(reset).toBeGreaterThanOrEqual(1);
        expect(reset).toBeLessThanOrEqual(60);
        expect(res.headers['retry-after']).toBeUndefined();
      }
      const limited = await call(t.testKey);
      expectError(limited, 429, 'rate_limited');
      const retryAfter = Number(limited.headers['retry-after']);
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.headers['ratelimit-limit']).toBe('5');
      expect(limited.headers['ratelimit-remaining']).toBe('0');
      expect(limited.headers['ratelimit-reset']).toBe(String(retryAfter));

      // A limited create must not create anything.
      const create = await call(t.testKey, `${CQRIS}?amount=777`);
      expectError(create, 429, 'rate_limited');

      const other = await call(t.liveKey);
      expect(other.statusCode).toBe(200);
      expect(other.headers['ratelimit-remaining']).toBe('4');

      // The window is per minute of the service clock.
      t.clock.advance(60_000);
      const again = await call(t.testKey, `${CSTATUS}?limit=100`);
      expect(again.statusCode).toBe(200);
      expect(again.headers['ratelimit-remaining']).toBe('4');
      expect(again.json().data.items.filter((i: { amount: number }) => i.amount === 777)).toHaveLength(0);
    } finally {
      await t.close();
    }
  });

  it('RATE_LIMIT_PER_MINUTE=0 turns limits and their headers off', async () => {
    const t = await createTestApp({ RATE_LIMIT_PER_MINUTE: '0' });
    try {
      for (let i = 0; i < 12; i++) {
        const res = await t.app.inject({ url: CSTATUS, headers: { 'x-api-key': t.testKey } });
        expect(res.statusCode).toBe(200);
        expect(res.headers['ratelimit-limit']).toBeUndefined();
        expect(res.headers['ratelimit-remaining']).toBeUndefined();
        expect(res.headers['ratelimit-reset']).toBeUndefined();
      }
    } finally {
      await t.close();
    }
  });
});

describe('malformed URLs rejected by the router', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('a path with a bad percent escape is a 400 envelope with the common headers', async () => {
    for (const url of ['/api/payment-gateway/cq%ris', '/api/payment-gateway/%', '/api/%zz/cqris?amount=1']) {
      const res = await t.app.inject({ url, headers: { 'x-request-id': 'bad-url-1' } });
      const body = expectError(res, 400, 'invalid_parameter');
      expect(body.error.request_id).toBe('bad-url-1');
    }
  });

  it('a path parameter over the router limit is answered in the envelope', async () => {
    const res = await t.app.inject({ url: `/api/payment-gateway/qr/trx_${'a'.repeat(120)}.png` });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    expectCommonHeaders(res);
    expect(res.json().error.request_id).toBe(res.headers['x-request-id']);
  });
});

// issue 23, found by the route-table fuzz: the API explorer's static files answered 500 to a Range past
// the end and to a path that climbs out of their folder (the file sender's 416 and 403 were not mapped).
describe('refusals of the static file sender', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('an unsatisfiable or malformed Range is a 400 envelope', async () => {
    for (const range of ['bytes=999999999-', 'bytes=a-b']) {
      const res = await t.app.inject({ url: '/docs/static/index.css', headers: { range } });
      expectError(res, 400, 'invalid_parameter');
    }
    expect((await t.app.inject({ url: '/docs/static/index.css', headers: { range: 'bytes=0-0' } })).statusCode).toBe(
      206,
    );
  });

  it('a path out of the folder is a 404 envelope', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    for (const path of [
      '/docs/static/../../../../etc/passwd',
      '/docs/static/%2e%2e',
      '/docs/static/%2e%2e/%2e%2e/package.json',
    ]) {
      // Over a raw socket: the path reaches the server exactly as written, unnormalised.
      const res = await rawRequest(
        listeningPort(t.app),
        `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      );
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.body).error.code).toBe('not_found');
    }
  });
});
