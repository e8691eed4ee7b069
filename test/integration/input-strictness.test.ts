import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/context.js';

describe('strict request bodies', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  const post = (payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/payment-gateway/cqris',
      headers: { 'x-api-key': t.testKey, 'content-type': 'application/json', ...headers },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });

  it('rejects a one-element list where one value belongs', async () => {
    const amount = await post({ amount: [1000] });
    expect(amount.statusCode).toBe(400);
    expect(amount.json().error).toMatchObject({ code: 'invalid_amount', param: 'amount' });
    const email = await post({ amount: 1000, email: ['a@b.co'] });
    expect(email.statusCode).toBe(400);
    expect(email.json().error).toMatchObject({ code: 'invalid_email', param: 'email' });
  });

  it('answers a text/plain body with 415', async () => {
    const res = await post('amount=1000', { 'content-type': 'text/plain' });
    expect(res.statusCode).toBe(415);
    expect(res.json().error.code).toBe('unsupported_media_type');
  });

  it('keeps Idempotency-Keys of test and live keys apart', async () => {
    const test = await post({ amount: 7000 }, { 'idempotency-key': 'order-77' });
    const live = await post({ amount: 7000 }, { 'idempotency-key': 'order-77', 'x-api-key': t.liveKey });
    expect(test.statusCode).toBe(201);
    expect(live.statusCode).toBe(201);
    expect(live.json().data.mode).toBe('live');
    expect(live.json().data.trxid).not.toBe(test.json().data.trxid);
  });
});

describe('HEAD on routes that change state', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('never creates or pays: 405', async () => {
    for (const url of ['/api/payment-gateway/cqris?amount=1000', '/api/payment-gateway/simulate?trxid=trx_x']) {
      const res = await t.app.inject({ method: 'HEAD', url, headers: { 'x-api-key': t.testKey } });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('GET, POST');
    }
    const rows = await t.deps.db.selectFrom('transactions').select('id').execute();
    expect(rows).toHaveLength(0);
    const status = await t.app.inject({ method: 'HEAD', url: '/api/payment-gateway/cstatus', headers: { 'x-api-key': t.testKey } });
    expect(status.statusCode).toBe(200);
  });
});
