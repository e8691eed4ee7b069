import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { hashApiKey } from '../../../src/domain/api-key.js';
import { redactUrl, scrubSecrets } from '../../../src/http/redact.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { expectEnvelopeShape, expectError, listeningPort, rawRequest } from '../../helpers/http-assertions.js';
import { CQRIS, CSTATUS } from '../../helpers/api.js';

const UNKNOWN_KEY = `sk_test_${'Zq9'.repeat(14)}`;

/** Every string that would let a reader of the logs use or recognise a key. */
function forbiddenFragments(keys: string[]): string[] {
  const out: string[] = [];
  for (const key of keys) {
    out.push(key, hashApiKey(key));
    // Any 12 consecutive characters of the random part: catches partly percent-encoded forms as well.
    const secret = key.replace(/^sk_(test|live)_/, '');
    for (let i = 0; i + 12 <= secret.length; i++) out.push(secret.slice(i, i + 12));
  }
  return out;
}

function expectCleanLogs(logs: string[], keys: string[]): void {
  expect(logs.length).toBeGreaterThan(0);
  const fragments = forbiddenFragments(keys);
  for (const line of logs) {
    expect(() => JSON.parse(line), line).not.toThrow();
    for (const fragment of fragments) {
      if (line.includes(fragment)) expect.fail(`a log line contains key material ${fragment}: ${line}`);
    }
  }
}

interface LogLine {
  msg?: string;
  url?: string;
  status?: number;
  level?: number;
  reqId?: string;
}

const parsed = (logs: string[]): LogLine[] => logs.map((l) => JSON.parse(l) as LogLine);

/** The key with one character of its secret percent-encoded: decodes to the same key. */
function partlyEncoded(key: string): string {
  const i = key.length - 20;
  return `${key.slice(0, i)}%${key.charCodeAt(i).toString(16).toUpperCase()}${key.slice(i + 1)}`;
}

describe('API keys never reach the logs', () => {
  let t: TestApp;
  const keys = () => [t.testKey, t.liveKey, UNKNOWN_KEY];

  beforeAll(async () => {
    t = await createTestApp({}, { captureLogs: true });
  });
  afterAll(async () => t.close());

  it('keys in the apikey query parameter: every outcome is logged redacted', async () => {
    const K = t.testKey;
    const requests: Array<{ req: InjectOptions; status: number }> = [
      { req: { url: `${CQRIS}?apikey=${K}&amount=10000` }, status: 200 },
      { req: { url: `${CQRIS}?amount=10001&apikey=${K}&email=a%40b.co` }, status: 200 },
      { req: { url: `${CSTATUS}?apikey=${K}` }, status: 200 },
      { req: { url: `/api/api/payment-gateway/cstatus?apikey=${K}&limit=1` }, status: 200 },
      { req: { url: `${CQRIS}?apikey=${K}&amount=abc` }, status: 400 },
      { req: { url: `${CQRIS}?apikey=${K}&amount=1&expires_in=-1` }, status: 400 },
      { req: { url: `${CQRIS}?apikey=${K}&amount=1`, headers: { 'x-api-key': t.liveKey } }, status: 400 },
      { req: { url: `${CQRIS}?apikey=${K}&apikey=${t.liveKey}&amount=1` }, status: 400 },
      { req: { url: `${CQRIS}?apikey=${UNKNOWN_KEY}&amount=1` }, status: 401 },
      { req: { url: `${CQRIS}?apikey=${K.slice(0, 20)}&amount=1` }, status: 401 },
      { req: { url: `/api/payment-gateway/nothing?apikey=${K}` }, status: 404 },
      { req: { url: `/api/${K}?apikey=${K}` }, status: 404 },
      { req: { url: `/api/payment-gateway/qr/trx_missing.png?apikey=${K}` }, status: 404 },
      { req: { url: `${CSTATUS}?apikey=${K}&trxid=trx_missing` }, status: 404 },
      { req: { method: 'DELETE', url: `${CQRIS}?apikey=${K}&amount=1` }, status: 405 },
      { req: { method: 'POST', url: `${CSTATUS}?apikey=${K}` }, status: 405 },
      { req: { url: `${CQRIS}?apikey=${K}&pad=${'x'.repeat(5000)}` }, status: 414 },
      { req: { url: `${CQRIS}?pad=${'x'.repeat(5000)}&apikey=${K}` }, status: 414 },
      { req: { url: `${CQRIS}?apikey=${K}&amount=%E0%A4%A` }, status: 400 },
      { req: { url: `${CQRIS}?apikey=${K}%ZZ&amount=1` }, status: 401 },
      { req: { url: `/api/payment-gateway/cq%ris?apikey=${K}` }, status: 400 },
      { req: { url: `/api/%E0%A4%A/${K}?apikey=${K}` }, status: 400 },
      { req: { method: 'POST', url: `${CQRIS}?apikey=${K}`, payload: { amount: '10002' } }, status: 201 },
      {
        req: {
          method: 'POST',
          url: `${CQRIS}?apikey=${K}`,
          headers: { 'content-type': 'application/xml' },
          payload: '<a/>',
        },
        status: 415,
      },
      {
        req: {
          method: 'POST',
          url: `${CQRIS}?apikey=${K}`,
          headers: { 'content-type': 'application/json' },
          payload: `{"amount":"1","pad":"${'x'.repeat(17_000)}"}`,
        },
        status: 413,
      },
      {
        req: {
          method: 'POST',
          url: `${CQRIS}?apikey=${K}`,
          headers: { 'content-type': 'application/json' },
          payload: '{"amount":',
        },
        status: 400,
      },
      // Other spellings of the parameter and of the key itself.
      { req: { url: `${CQRIS}?APIKEY=${K}&amount=1` }, status: 401 },
      { req: { url: `${CQRIS}?api_key=${K}&amount=1` }, status: 401 },
      { req: { url: `${CQRIS}?apikey=${K.replace(/_/g, '%5F')}&amount=10003` }, status: 200 },
      { req: { url: `${CQRIS}?apikey=${partlyEncoded(K)}&amount=10004` }, status: 200 },
      { req: { url: `${CQRIS}?api%6Bey=${K}&amount=10005` }, status: 200 },
      { req: { url: `${CQRIS}?api%6Bey=%73${K.slice(1)}&amount=10006` }, status: 200 },
      { req: { url: `${CQRIS}?api%6bey=${partlyEncoded(K)}&amount=10007` }, status: 200 },
      { req: { url: `${CQRIS}?amount=10008&ref=${K}`, headers: { 'x-api-key': K } }, status: 200 },
      // The key as the request id is echoed to its sender, but scrubbed from the log.
      { req: { url: `${CSTATUS}?apikey=${K}`, headers: { 'x-request-id': K } }, status: 200 },
    ];
    for (const { req, status } of requests) {
      const res = await t.app.inject(req);
      expect(res.statusCode, `${req.method ?? 'GET'} ${req.url}: ${res.body}`).toBe(status);
      if (status >= 400) expectEnvelopeShape(res.json());
      // No response body echoes the key back either (except the request id its sender chose).
      if (!req.headers?.['x-request-id'] && status >= 400) expect(res.body).not.toContain(K.slice(8));
    }

    expectCleanLogs(t.logs, keys());
    const lines = parsed(t.logs).filter((l) => l.msg === 'request');
    // Everything that went through Fastify's routing has its access line.
    expect(lines.length).toBeGreaterThanOrEqual(requests.length - 3);
    const redacted = lines.filter((l) => l.url?.includes('apikey=[REDACTED]'));
    expect(redacted.length).toBeGreaterThan(20);
    expect(redacted.some((l) => l.status === 200 && l.url === `${CQRIS}?apikey=[REDACTED]&amount=10000`)).toBe(true);
    // Only the key is redacted; the rest of the URL stays readable for operators.
    expect(lines.some((l) => l.url === `${CQRIS}?amount=10001&apikey=[REDACTED]&email=a%40b.co`)).toBe(true);
    expect(lines.some((l) => l.url === `${CQRIS}?apikey=[REDACTED]&amount=%E0%A4%A`)).toBe(true);
    expect(lines.some((l) => l.url === `${CQRIS}?api%6Bey=[REDACTED]&amount=10006`)).toBe(true);
    expect(lines.some((l) => l.status === 414)).toBe(true);
    expect(lines.some((l) => l.status === 405)).toBe(true);
  });

  it('keys in the X-Api-Key and Authorization headers never reach the logs', async () => {
    const before = t.logs.length;
    const H = { 'x-api-key': t.liveKey };
    const requests: Array<{ req: InjectOptions; status: number }> = [
      { req: { url: `${CQRIS}?amount=20000`, headers: H }, status: 200 },
      { req: { url: `${CQRIS}?amount=-1`, headers: H }, status: 400 },
      { req: { url: `${CQRIS}?amount=1`, headers: { 'x-api-key': UNKNOWN_KEY } }, status: 401 },
      { req: { url: `/api/nothing`, headers: H }, status: 404 },
      { req: { method: 'PUT', url: CQRIS, headers: H }, status: 405 },
      { req: { url: `${CSTATUS}?pad=${'y'.repeat(5000)}`, headers: H }, status: 414 },
      { req: { url: `${CQRIS}?amount=20001`, headers: { authorization: `Bearer ${t.liveKey}` } }, status: 200 },
      { req: { url: `${CQRIS}?amount=1`, headers: { authorization: `Bearer ${UNKNOWN_KEY}` } }, status: 401 },
      { req: { method: 'POST', url: '/api/payment-gateway/simulate?trxid=trx_none', headers: H }, status: 403 },
    ];
    for (const { req, status } of requests) {
      const res = await t.app.inject(req);
      expect(res.statusCode, `${req.url}: ${res.body}`).toBe(status);
    }
    expect(t.logs.length).toBeGreaterThan(before);
    expectCleanLogs(t.logs, keys());
  });

  it('over a real socket: oversized headers and garbage request lines get the envelope and stay out of the logs', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = listeningPort(t.app);
    const K = t.testKey;

    const ok = await rawRequest(
      port,
      `GET ${CQRIS}?apikey=${K}&amount=30000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body).success).toBe(true);

    const cases: Array<{ data: string | Buffer; status: number; code: string }> = [
      {
        data: `GET ${CQRIS}?apikey=${K}&amount=1 HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(17_000)}\r\n\r\n`,
        status: 431,
        code: 'headers_too_large',
      },
      {
        data: `GET ${CQRIS}?apikey=${K}&pad=${'u'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
        status: 431,
        code: 'headers_too_large',
      },
      {
        data: `GET ${CQRIS}?apikey=${K}&amount=1 HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${K}\r\nX-Pad: ${'p'.repeat(17_000)}\r\n\r\n`,
        status: 431,
        code: 'headers_too_large',
      },
      { data: `GARBAGE ${K} \x01\x02\r\n\r\n`, status: 400, code: 'invalid_parameter' },
      { data: `GET /?apikey=${K}\x00 HTTP/1.1\r\n\r\n`, status: 400, code: 'invalid_parameter' },
      { data: `GET ${CQRIS}?apikey=${K} HTTP/9.9\r\nHost: x\r\n\r\n`, status: 400, code: 'invalid_parameter' },
      { data: `GET ${CQRIS}?apikey=${K} HTTP/1.1\r\nBad Header ${K}\r\n\r\n`, status: 400, code: 'invalid_parameter' },
      {
        data: Buffer.concat([
          Buffer.from(`GET ${CQRIS}?apikey=${K}&amount=`),
          Buffer.from([0xff, 0x00, 0x7f]),
          Buffer.from(' HTTP/1.1\r\n\r\n'),
        ]),
        status: 400,
        code: 'invalid_parameter',
      },
    ];
    for (const c of cases) {
      const res = await rawRequest(port, c.data);
      expect(res.status, res.text.slice(0, 200)).toBe(c.status);
      expect(res.closed).toBe(true);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['x-api-version']).toBe('1.0.0');
      expect(res.headers['cache-control']).toBe('no-store');
      const body = JSON.parse(res.body) as unknown;
      expectEnvelopeShape(body);
      expect(body.error.code).toBe(c.code);
      expect(res.headers['x-request-id']).toBe(body.error.request_id);
      expect(res.body).not.toContain(K.slice(8));
    }

    expectCleanLogs(t.logs, keys());
    expect(parsed(t.logs).some((l) => l.msg === 'request' && l.url === `${CQRIS}?apikey=[REDACTED]&amount=30000`)).toBe(
      true,
    );
  });
});

describe('an internal error is logged without the key and answered without internals', () => {
  it('a request failing on a closed database', async () => {
    const t = await createTestApp({}, { captureLogs: true });
    try {
      await t.database.close();
      const res = await t.app.inject({ url: `${CQRIS}?apikey=${t.testKey}&amount=5000` });
      const body = expectError(res, 500, 'internal_error');
      expect(body.error.message).not.toMatch(/destroyed|kysely|sqlite|driver|stack|\.ts/i);
      expect(res.body).not.toContain(t.testKey);

      const res2 = await t.app.inject({ url: CSTATUS, headers: { 'x-api-key': t.liveKey } });
      expectError(res2, 500, 'internal_error');

      expectCleanLogs(t.logs, [t.testKey, t.liveKey]);
      const lines = parsed(t.logs);
      const failed = lines.filter((l) => l.msg === 'request failed');
      expect(failed).toHaveLength(2);
      expect(failed[0]!.level).toBe(50);
      expect(failed[0]!.url).toBe(`${CQRIS}?apikey=[REDACTED]&amount=5000`);
      expect(failed[0]!.reqId).toBe(body.error.request_id);
      const access = lines.filter((l) => l.msg === 'request' && l.status === 500);
      expect(access).toHaveLength(2);
      // The access line carries the request id as the error line does (written through the root logger).
      expect(access[0]!.reqId).toBe(body.error.request_id);
    } finally {
      t.app.server.closeIdleConnections();
      await t.app.close();
      rmSync(t.dir, { recursive: true, force: true });
    }
  });
});

describe('redactUrl and scrubSecrets', () => {
  const key = `sk_live_${'k3Y'.repeat(14)}`;
  const secret = key.slice(8);

  it('redact the key parameter however it is spelled or encoded, and nothing else', () => {
    const cases: Array<[string, string]> = [
      [`/p?apikey=${key}&amount=1`, '/p?apikey=[REDACTED]&amount=1'],
      [`/p?amount=1&APIKEY=${key}`, '/p?amount=1&APIKEY=[REDACTED]'],
      [`/p?api_key=abc&key=def`, '/p?api_key=[REDACTED]&key=[REDACTED]'],
      [`/p?api%6Bey=%73${key.slice(1)}`, '/p?api%6Bey=[REDACTED]'],
      [`/p?%61pikey=short`, '/p?%61pikey=[REDACTED]'],
      [`/p?ref=%2573${key.slice(1)}&amount=2`, '/p?ref=[REDACTED]&amount=2'],
      [`/p/${key}/x?amount=3`, '/p/[REDACTED]/x?amount=3'],
      [`/p/%73${key.slice(1)}`, '/p/[REDACTED]'],
      [`/p?${key}`, '/p?[REDACTED]'],
      ['/p?amount=%E0%A4%A&email=a%40b.co&ref=x%', '/p?amount=%E0%A4%A&email=a%40b.co&ref=x%'],
      ['/p', '/p'],
      ['/p?', '/p?'],
      ['/p?keyboard=1&monkey=2', '/p?keyboard=1&monkey=2'],
    ];
    for (const [input, expected] of cases) expect(redactUrl(input), input).toBe(expected);
  });

  it('scrubs key material from a whole log line, percent-encoded or not', () => {
    for (const line of [
      `{"msg":"x","note":"${key}"}`,
      `{"msg":"x","url":"/p?a=%73%6B%5F%6C%69%76%65%5F${secret}"}`,
      `{"msg":"x","url":"/p?q=sk_live_%${secret.charCodeAt(0).toString(16)}${secret.slice(1)}"}`,
    ]) {
      const out = scrubSecrets(line);
      expect(out).not.toContain(secret.slice(4, 16));
      expect(out).toContain('[REDACTED]');
      expect(() => JSON.parse(out)).not.toThrow();
    }
    const plain = '{"msg":"request","url":"/p?amount=%E0%A4%A&ref=abc%20def"}';
    expect(scrubSecrets(plain)).toBe(plain);
  });
});
