import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/context.js';

describe('create, check and pay in the sandbox', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('creates a transaction, reads it back and pays it', async () => {
    const created = await t.app.inject({
      url: `/api/payment-gateway/cqris?amount=10000`,
      headers: { 'x-api-key': t.testKey },
    });
    expect(created.statusCode).toBe(200);
    const tx = created.json().data;
    expect(tx.total_amount).toBe(10000 + tx.unique_code);
    expect(tx.status).toBe('pending');

    const status = await t.app.inject({ url: `/api/payment-gateway/cstatus?trxid=${tx.trxid}&apikey=${t.testKey}` });
    expect(status.json().data.trxid).toBe(tx.trxid);

    const paid = await t.app.inject({
      method: 'POST',
      url: `/api/payment-gateway/simulate?trxid=${tx.trxid}`,
      headers: { 'x-api-key': t.testKey },
    });
    expect(paid.statusCode).toBe(200);
    expect(paid.json().data.status).toBe('paid');
    expect(paid.json().data.payment.source).toBe('simulator');
  });
});
