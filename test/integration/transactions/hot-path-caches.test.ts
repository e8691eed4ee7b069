import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../src/services/merchants/create-api-key.js';
import { PRINCIPAL_CACHE_MS } from '../../../src/services/merchants/principal-cache.js';
import { revokeApiKey } from '../../../src/services/merchants/revoke-api-key.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';

describe('hot-path caches', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  const status = (key: string) =>
    t.app.inject({ method: 'GET', url: '/api/payment-gateway/cstatus', headers: { 'x-api-key': key } });

  it('reuses a key lookup for a few seconds; a revoke in this process ends it at once', async () => {
    expect(PRINCIPAL_CACHE_MS).toBeLessThanOrEqual(5000);
    const created = await createApiKey(t.deps, { merchantId: t.merchant.id, mode: 'test' });
    expect((await status(created.key)).statusCode).toBe(200);
    // Revoked behind the process's back (as the CLI or another instance would): the cached principal
    // is still honoured, within PRINCIPAL_CACHE_MS.
    await t.deps.db.updateTable('api_keys').set({ revoked_at: t.deps.now() }).where('id', '=', created.id).execute();
    expect((await status(created.key)).statusCode).toBe(200);
    await revokeApiKey(t.deps, created.id);
    expect((await status(created.key)).statusCode).toBe(401);
  });

  it('serves the same PNG bytes on every fetch, and a create renders no image unless asked', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/payment-gateway/cqris?amount=12000&apikey=${t.testKey}`,
    });
    const trxid = res.json().data.trxid as string;
    expect(res.json().data.qr_image).toBeUndefined();
    const a = await t.app.inject({ method: 'GET', url: `/api/payment-gateway/qr/${trxid}.png` });
    const b = await t.app.inject({ method: 'GET', url: `/api/payment-gateway/qr/${trxid}.png` });
    expect(a.statusCode).toBe(200);
    expect(a.rawPayload.equals(b.rawPayload)).toBe(true);
  });
});
