// The client package against a real gateway process on this run's database: every method, and every
// error the API answers as a QrisGatewayError with its code, param, status and request id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { QrisGatewayClient, type Transaction } from '@qris-gateway/client';
import { failure } from '../helpers/client-failure.js';
import { startSeededGateway, type SeededGateway } from '../helpers/seeded-gateway.js';
import { seedMerchant } from '../helpers/context.js';

// jsqr is CommonJS: its function is the default export's default.
const jsQR = jsQRModule.default;

let gateway: SeededGateway;
let client: QrisGatewayClient;

beforeAll(async () => {
  gateway = await startSeededGateway();
  client = new QrisGatewayClient({ baseUrl: gateway.url, apiKey: gateway.testKey });
}, 180_000);

afterAll(async () => {
  await gateway?.stop();
});

/** A fetch that records the paths it was asked for. */
function countingFetch(): { fetch: typeof fetch; paths: string[] } {
  const paths: string[] = [];
  return {
    paths,
    fetch: (input, init) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
      paths.push(`${url.pathname}${url.search}`);
      return fetch(input, init);
    },
  };
}

describe('constructing a client', () => {
  it('refuses a malformed key or base URL at once, before any request', () => {
    expect(() => new QrisGatewayClient({ baseUrl: gateway.url, apiKey: 'pk_test_abc' })).toThrow(TypeError);
    expect(() => new QrisGatewayClient({ baseUrl: 'not a url', apiKey: gateway.testKey })).toThrow(TypeError);
    expect(() => new QrisGatewayClient({ baseUrl: 'ftp://example.com', apiKey: gateway.testKey })).toThrow(TypeError);
  });

  it('accepts a base URL that already ends in /api (the paths are not doubled)', async () => {
    const counted = countingFetch();
    const c = new QrisGatewayClient({ baseUrl: `${gateway.url}/api/`, apiKey: gateway.testKey, fetch: counted.fetch });
    const tx = await c.createQris({ amount: 1500 });
    expect(counted.paths).toEqual(['/api/payment-gateway/cqris']);
    expect(tx.amount).toBe(1500);
  });
});

describe('createQris', () => {
  it('creates a pending transaction with its dynamic QRIS, passing email, ref and expiresIn', async () => {
    const before = Date.now();
    const tx = await client.createQris({
      amount: 25_000,
      email: 'payer@example.com',
      ref: `order-${before}`,
      expiresIn: 600,
    });
    expect(tx).toMatchObject({
      status: 'pending',
      mode: 'test',
      amount: 25_000,
      currency: 'IDR',
      email: 'payer@example.com',
      ref: `order-${before}`,
    });
    expect(tx.total_amount).toBe(25_000 + tx.unique_code);
    expect(tx.qris).toMatch(/^000201010212/);
    expect(tx.trxid).toMatch(/^trx_/);
    const ttl = Date.parse(tx.expires_at) - Date.parse(tx.created_at);
    expect(ttl).toBeGreaterThanOrEqual(599_000);
    expect(ttl).toBeLessThanOrEqual(601_000);
  });

  it('returns the same transaction for a repeated idempotency key, and refuses the key with another amount', async () => {
    const key = `idem-${Date.now()}`;
    const first = await client.createQris({ amount: 30_000, idempotencyKey: key });
    const again = await client.createQris({ amount: 30_000, idempotencyKey: key });
    expect(again.trxid).toBe(first.trxid);
    const err = await failure(client.createQris({ amount: 31_000, idempotencyKey: key }));
    expect(err).toMatchObject({ code: 'idempotency_key_reused', status: 409 });
    expect(err.requestId).toMatch(/\S/);
    expect(err.request_id).toBe(err.requestId);
  });

  it('returns the same transaction for a repeated ref, and answers ref_conflict for another amount', async () => {
    const ref = `ref-${Date.now()}`;
    const first = await client.createQris({ amount: 12_000, ref });
    expect((await client.createQris({ amount: 12_000, ref })).trxid).toBe(first.trxid);
    expect(await failure(client.createQris({ amount: 13_000, ref }))).toMatchObject({
      code: 'ref_conflict',
      status: 409,
    });
  });

  it('answers a bad parameter with its code and the parameter named', async () => {
    expect(await failure(client.createQris({ amount: 10.5 }))).toMatchObject({
      code: 'invalid_amount',
      status: 400,
      param: 'amount',
    });
    expect(await failure(client.createQris({ amount: 99_999_999 }))).toMatchObject({
      code: 'amount_out_of_range',
      status: 400,
      param: 'amount',
    });
    expect(await failure(client.createQris({ amount: 10_000, email: 'not-an-address' }))).toMatchObject({
      code: 'invalid_email',
      status: 400,
      param: 'email',
    });
    expect(await failure(client.createQris({ amount: 10_000, expiresIn: 1 }))).toMatchObject({
      code: 'invalid_parameter',
      status: 400,
      param: 'expires_in',
    });
  });

  it('answers an unknown key with invalid_api_key', async () => {
    const stranger = new QrisGatewayClient({ baseUrl: gateway.url, apiKey: 'sk_test_0000000000000000000000000000' });
    const err = await failure(stranger.createQris({ amount: 10_000 }));
    expect(err).toMatchObject({ code: 'invalid_api_key', status: 401 });
    expect(err.message).not.toContain('sk_test_0000');
  });
});

describe('getStatus', () => {
  it('reads a transaction back', async () => {
    const tx = await client.createQris({ amount: 14_000 });
    expect(await client.getStatus(tx.trxid)).toEqual(tx);
  });

  it('is a 404 for an unknown id, for another mode, and for another merchant', async () => {
    const tx = await client.createQris({ amount: 14_500 });
    expect(await failure(client.getStatus('trx_0000000000000000000000000000000'))).toMatchObject({
      code: 'transaction_not_found',
      status: 404,
    });
    const live = new QrisGatewayClient({ baseUrl: gateway.url, apiKey: gateway.liveKey });
    expect(await failure(live.getStatus(tx.trxid))).toMatchObject({ code: 'transaction_not_found', status: 404 });
    const other = await seedMerchant(gateway.deps, 1, 'Other Merchant');
    const stranger = new QrisGatewayClient({ baseUrl: gateway.url, apiKey: other.testKey });
    expect(await failure(stranger.getStatus(tx.trxid))).toMatchObject({ code: 'transaction_not_found', status: 404 });
  });

  it('answers a malformed id with invalid_parameter naming trxid', async () => {
    expect(await failure(client.getStatus('not an id'))).toMatchObject({
      code: 'invalid_parameter',
      status: 400,
      param: 'trxid',
    });
  });
});

describe('cancel', () => {
  it('cancels a pending transaction, answers the same again, and refuses a paid one', async () => {
    const tx = await client.createQris({ amount: 16_000 });
    const cancelled = await client.cancel(tx.trxid);
    expect(cancelled).toMatchObject({ trxid: tx.trxid, status: 'cancelled' });
    expect(cancelled.cancelled_at).not.toBeNull();
    expect(await client.cancel(tx.trxid)).toEqual(cancelled);

    const paid = await client.createQris({ amount: 16_500 });
    await client.simulatePayment(paid.trxid);
    expect(await failure(client.cancel(paid.trxid))).toMatchObject({ code: 'transaction_already_paid', status: 409 });
    expect(await failure(client.cancel('trx_0000000000000000000000000000000'))).toMatchObject({
      code: 'transaction_not_found',
      status: 404,
    });
  });
});

describe('simulatePayment', () => {
  it('pays a sandbox transaction with a test key', async () => {
    const tx = await client.createQris({ amount: 17_000 });
    const paid = await client.simulatePayment(tx.trxid);
    expect(paid).toMatchObject({ trxid: tx.trxid, status: 'paid', paid_late: false });
    expect(paid.payment?.amount).toBe(tx.total_amount);
  });

  it('is refused with test_mode_only for a live key', async () => {
    const live = new QrisGatewayClient({ baseUrl: gateway.url, apiKey: gateway.liveKey });
    const tx = await live.createQris({ amount: 17_500 });
    expect(await failure(live.simulatePayment(tx.trxid))).toMatchObject({ code: 'test_mode_only', status: 403 });
    expect((await live.getStatus(tx.trxid)).status).toBe('pending');
  });
});

describe('listTransactions', () => {
  it('goes through every page, newest first, and filters by status', async () => {
    const merchant = await seedMerchant(gateway.deps, 2, 'Listing Merchant');
    const counted = countingFetch();
    const own = new QrisGatewayClient({ baseUrl: gateway.url, apiKey: merchant.testKey, fetch: counted.fetch });
    const made: Transaction[] = [];
    for (let i = 0; i < 5; i += 1) made.push(await own.createQris({ amount: 20_000 + i }));
    await own.cancel(made[1]!.trxid);

    counted.paths.length = 0;
    const all: Transaction[] = [];
    for await (const tx of own.listTransactions({ limit: 2 })) all.push(tx);
    expect(all.map((t) => t.trxid)).toEqual(made.map((t) => t.trxid).reverse());
    // Five transactions at two a page: three pages, each asked for once.
    expect(counted.paths.filter((p) => p.startsWith('/api/payment-gateway/cstatus'))).toHaveLength(3);

    const cancelled: Transaction[] = [];
    for await (const tx of own.listTransactions({ status: 'cancelled' })) cancelled.push(tx);
    expect(cancelled.map((t) => t.trxid)).toEqual([made[1]!.trxid]);
  });

  it('stops early when the loop does, without asking for the next page', async () => {
    const counted = countingFetch();
    const own = new QrisGatewayClient({ baseUrl: gateway.url, apiKey: gateway.testKey, fetch: counted.fetch });
    for await (const tx of own.listTransactions({ limit: 1 })) {
      expect(tx.trxid).toMatch(/^trx_/);
      break;
    }
    expect(counted.paths).toHaveLength(1);
  });

  it('answers a bad page size with invalid_parameter naming limit', async () => {
    const pages = client.listTransactions({ limit: 500 });
    expect(await failure(pages.next())).toMatchObject({ code: 'invalid_parameter', status: 400, param: 'limit' });
  });
});

describe('qrPng', () => {
  it('returns a PNG whose QR code is the transaction payload', async () => {
    const tx = await client.createQris({ amount: 18_000 });
    const png = await client.qrPng(tx.trxid);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const image = PNG.sync.read(Buffer.from(png));
    const decoded = jsQR(new Uint8ClampedArray(image.data), image.width, image.height);
    expect(decoded?.data).toBe(tx.qris);
  });

  it('is a not_found error for an unknown transaction', async () => {
    expect(await failure(client.qrPng('trx_0000000000000000000000000000000'))).toMatchObject({
      code: 'transaction_not_found',
      status: 404,
    });
  });
});
