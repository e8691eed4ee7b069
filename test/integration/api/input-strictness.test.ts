import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { startSeededWorld, type SeededWorld } from '../../helpers/seeded-world.js';

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
    const status = await t.app.inject({
      method: 'HEAD',
      url: '/api/payment-gateway/cstatus',
      headers: { 'x-api-key': t.testKey },
    });
    expect(status.statusCode).toBe(200);
  });
});

// issue 23, found by the route-table fuzz on PostgreSQL: a NUL character (%00) in a path, query or form
// field reached a query, and PostgreSQL's refusal of NUL in text answered 500 (console pages, the audit
// filter, the login form, renames, key creation). It is refused at the edge, on both databases alike.
describe('NUL characters in requests', () => {
  let w: SeededWorld;
  beforeAll(async () => {
    w = await startSeededWorld();
  });
  afterAll(async () => w?.close());

  it('are a 400 wherever they are: path, query, form or JSON body', async () => {
    const { operator, userA, anonymous } = w.viewers;
    const A = w.merchants.A;
    const answers = [
      await userA.get('/dashboard/links/%00/print'),
      await operator.get('/dashboard/merchants/%00'),
      await operator.get('/dashboard/audit?actor=%00'),
      await anonymous.post('/dashboard/login', { email: 'a\u0000@b.co', password: 'x' }),
      await operator.post(`/dashboard/merchants/${A.ids.merchantId}/rename`, { name: 'a\u0000' }),
      await operator.post('/dashboard/keys', { merchant: '\u0000', mode: 'test' }),
      await w.t.app.inject({ url: `/api/payment-gateway/cqris?amount=10000&ref=a%00&apikey=${A.testKey}` }),
      await w.t.app.inject({
        method: 'POST',
        url: '/api/payment-gateway/cqris',
        headers: { 'x-api-key': A.testKey, 'content-type': 'application/json' },
        payload: '{"amount":10000,"ref":"x","\\u0000":1}',
      }),
    ];
    expect(answers.map((res) => res.statusCode)).toEqual(answers.map(() => 400));
    expect(answers[6]!.json().error.code).toBe('invalid_parameter');
    // The SNAP routes answer in SNAP's words, and a refusal at the edge is their 400, not General Error.
    const snap = await w.t.app.inject({
      method: 'POST',
      url: '/snap/v1.0/qr/qr-mpm-notify?x=%00',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(snap.statusCode).toBe(400);
    expect(snap.json().responseCode).toMatch(/^400/);
    const merchant = await w.t.deps.db
      .selectFrom('merchants')
      .select('name')
      .where('id', '=', A.ids.merchantId)
      .executeTakeFirstOrThrow();
    expect(merchant.name).toBe(A.name);
  });
});
