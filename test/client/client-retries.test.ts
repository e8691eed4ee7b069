// The client's retries, through a real proxy that fails chosen requests in front of a real gateway
// process: a call that is safe to repeat is sent again after a dropped connection, a timeout or a 5xx;
// one that may act is sent again only when the gateway refused it with Retry-After.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QrisGatewayClient, type Transaction } from '@qris-gateway/client';
import { failure } from '../helpers/client-failure.js';
import { startSeededGateway, type SeededGateway } from '../helpers/seeded-gateway.js';
import { FaultProxy } from '../helpers/fault-proxy.js';
import { freePort } from '../helpers/processes.js';

let gateway: SeededGateway;
let proxy: FaultProxy;

beforeAll(async () => {
  gateway = await startSeededGateway();
  proxy = await FaultProxy.start(gateway.url);
}, 180_000);

afterEach(() => {
  proxy.plan = () => ({ kind: 'forward' });
  proxy.seen.length = 0;
});

afterAll(async () => {
  await proxy?.close();
  await gateway?.stop();
});

const viaProxy = (options: { maxRetries?: number; timeoutMs?: number; maxRetryDelayMs?: number } = {}) =>
  new QrisGatewayClient({ baseUrl: proxy.url, apiKey: gateway.testKey, ...options });

const refused = (status: number, code: string, retryAfter: string) =>
  ({
    kind: 'answer',
    status,
    headers: { 'content-type': 'application/json', 'retry-after': retryAfter, 'x-request-id': 'req-from-proxy' },
    body: JSON.stringify({ success: false, error: { code, message: 'try again later', request_id: 'req-from-proxy' } }),
  }) as const;

async function transactionsOfAmount(amount: number): Promise<Transaction[]> {
  const direct = new QrisGatewayClient({ baseUrl: gateway.url, apiKey: gateway.testKey });
  const found: Transaction[] = [];
  for await (const tx of direct.listTransactions({ limit: 100 })) if (tx.amount === amount) found.push(tx);
  return found;
}

describe('a create whose answer is lost', () => {
  it('is sent again with the same idempotency key, so the gateway makes one transaction, not two', async () => {
    proxy.plan = (method, path, i) =>
      i === 0 && method === 'POST' && path.startsWith('/api/payment-gateway/cqris')
        ? { kind: 'drop-after' }
        : { kind: 'forward' };
    const tx = await viaProxy().createQris({ amount: 41_000 });
    expect(proxy.seen.map((r) => r.fault)).toEqual(['drop-after', 'forward']);
    const made = await transactionsOfAmount(41_000);
    expect(made.map((t) => t.trxid)).toEqual([tx.trxid]);
  });

  it('carries an Idempotency-Key only while retries are on (a keyed create costs the gateway more)', async () => {
    const sent: Array<string | null> = [];
    const watching: typeof fetch = (input, init) => {
      sent.push(new Headers(init?.headers).get('idempotency-key'));
      return fetch(input, init);
    };
    await new QrisGatewayClient({ baseUrl: gateway.url, apiKey: gateway.testKey, fetch: watching }).createQris({
      amount: 41_500,
    });
    await new QrisGatewayClient({
      baseUrl: gateway.url,
      apiKey: gateway.testKey,
      fetch: watching,
      maxRetries: 0,
    }).createQris({ amount: 41_600 });
    await new QrisGatewayClient({
      baseUrl: gateway.url,
      apiKey: gateway.testKey,
      fetch: watching,
      maxRetries: 0,
    }).createQris({
      amount: 41_700,
      idempotencyKey: 'mine-1',
    });
    expect(sent[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent.slice(1)).toEqual([null, 'mine-1']);
  });

  it('gives up after maxRetries and says the connection failed', async () => {
    proxy.plan = () => ({ kind: 'drop-before' });
    const err = await failure(viaProxy({ maxRetries: 2 }).createQris({ amount: 42_000 }));
    expect(err).toMatchObject({ code: 'network_error', status: 0 });
    expect(proxy.count('/api/payment-gateway/cqris')).toBe(3);
  });
});

describe('a simulated payment, which may not be sent twice', () => {
  it('is not sent again after a dropped connection', async () => {
    const tx = await viaProxy().createQris({ amount: 43_000 });
    proxy.seen.length = 0;
    proxy.plan = () => ({ kind: 'drop-after' });
    expect(await failure(viaProxy().simulatePayment(tx.trxid))).toMatchObject({ code: 'network_error', status: 0 });
    expect(proxy.count('/api/payment-gateway/simulate')).toBe(1);
  });

  it('is sent again after a 503 with Retry-After, once the wait is over', async () => {
    const tx = await viaProxy().createQris({ amount: 44_000 });
    proxy.seen.length = 0;
    proxy.plan = (_m, _p, i) => (i === 0 ? refused(503, 'service_unavailable', '1') : { kind: 'forward' });
    const started = Date.now();
    const paid = await viaProxy().simulatePayment(tx.trxid);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(paid.status).toBe('paid');
    expect(proxy.seen.map((r) => r.fault)).toEqual(['answer', 'forward']);
  });

  it('is not sent again after a 500: the gateway may have acted', async () => {
    proxy.plan = () => ({
      kind: 'answer',
      status: 500,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ success: false, error: { code: 'internal_error', message: 'boom', request_id: 'req-1' } }),
    });
    expect(await failure(viaProxy().simulatePayment('trx_0000000000000000000000000000000'))).toMatchObject({
      code: 'internal_error',
      status: 500,
      requestId: 'req-1',
    });
    expect(proxy.seen).toHaveLength(1);
  });
});

describe('refusals with Retry-After', () => {
  it('a 429 with a short Retry-After is waited out; a long one is thrown with its retryAfter', async () => {
    proxy.plan = (_m, _p, i) => (i === 0 ? refused(429, 'rate_limited', '1') : { kind: 'forward' });
    expect((await viaProxy().createQris({ amount: 45_000 })).amount).toBe(45_000);
    expect(proxy.seen).toHaveLength(2);

    proxy.seen.length = 0;
    proxy.plan = () => refused(429, 'quota_exceeded', '3600');
    const err = await failure(viaProxy().createQris({ amount: 45_500 }));
    expect(err).toMatchObject({ code: 'quota_exceeded', status: 429, retryAfter: 3600, requestId: 'req-from-proxy' });
    expect(proxy.seen).toHaveLength(1);
  });

  it('a Retry-After as an HTTP date is understood', async () => {
    const at = new Date(Date.now() + 3_600_000).toUTCString();
    proxy.plan = () => refused(503, 'unique_code_exhausted', at);
    const err = await failure(viaProxy().createQris({ amount: 46_000 }));
    expect(err.code).toBe('unique_code_exhausted');
    expect(err.retryAfter).toBeGreaterThan(3500);
    expect(proxy.seen).toHaveLength(1);
  });
});

describe('reads', () => {
  it('are sent again after a 502 page of a proxy, and fail with invalid_response when it persists', async () => {
    const tx = await viaProxy().createQris({ amount: 47_000 });
    proxy.seen.length = 0;
    const badGateway = {
      kind: 'answer',
      status: 502,
      headers: { 'content-type': 'text/html' },
      body: '<html>Bad Gateway</html>',
    } as const;
    proxy.plan = (_m, _p, i) => (i === 0 ? badGateway : { kind: 'forward' });
    expect((await viaProxy().getStatus(tx.trxid)).trxid).toBe(tx.trxid);
    expect(proxy.seen).toHaveLength(2);

    proxy.seen.length = 0;
    proxy.plan = () => badGateway;
    expect(await failure(viaProxy({ maxRetries: 1 }).getStatus(tx.trxid))).toMatchObject({
      code: 'invalid_response',
      status: 502,
    });
    expect(proxy.seen).toHaveLength(2);
  });

  it('time out after timeoutMs with a timeout error, retried first', async () => {
    // The proxy hangs for good: only the client's timeout ends each try.
    proxy.plan = () => ({ kind: 'hang' });
    const err = await failure(
      viaProxy({ timeoutMs: 300, maxRetries: 1 }).getStatus('trx_0000000000000000000000000000000'),
    );
    expect(err).toMatchObject({ code: 'timeout', status: 0 });
    expect(proxy.seen).toHaveLength(2);
  });

  it('stop at once when the caller aborts, with the abort reason', async () => {
    proxy.plan = () => ({ kind: 'hang' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller gave up')), 200);
    await expect(
      viaProxy().getStatus('trx_0000000000000000000000000000000', { signal: controller.signal }),
    ).rejects.toThrow('caller gave up');
    expect(proxy.seen).toHaveLength(1);
  });
});

describe('answers that are not the gateway', () => {
  it('a 200 that is not the gateway JSON is invalid_response; nothing listening is network_error', async () => {
    const impostor = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'),
    );
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    try {
      const c = new QrisGatewayClient({
        baseUrl: `http://127.0.0.1:${(impostor.address() as AddressInfo).port}`,
        apiKey: gateway.testKey,
      });
      expect(await failure(c.getStatus('trx_0000000000000000000000000000000'))).toMatchObject({
        code: 'invalid_response',
        status: 200,
      });
      expect(await failure(c.qrPng('trx_0000000000000000000000000000000'))).toMatchObject({
        code: 'invalid_response',
        status: 200,
      });
    } finally {
      await new Promise((resolve) => impostor.close(resolve));
    }
    const nobody = new QrisGatewayClient({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      apiKey: gateway.testKey,
      maxRetries: 0,
    });
    const err = await failure(nobody.getStatus('trx_0000000000000000000000000000000'));
    expect(err).toMatchObject({ code: 'network_error', status: 0 });
    expect(err.message).toContain('ECONNREFUSED');
  });
});
