import { afterEach, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/services/merchants/create-merchant.js';
import { setDailyQuota } from '../../src/services/merchants/quotas.js';
import { createApiKey } from '../../src/services/merchants/api-keys.js';
import { createTestApp, type TestApp, vectors } from '../helpers/context.js';
import { addMerchantUser, addOperator, ConsoleClient } from '../helpers/console.js';

describe('live-key approvals on the overview', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('lists self-service merchants waiting for approval; an operator approves one; a merchant user cannot', async () => {
    t = await createTestApp();
    await addOperator(t.deps);
    const waiting = await createMerchant(t.deps, { name: 'Toko Baru', qris: vectors.vectors[1]!.static, liveApproved: false });
    expect(waiting.live_approved_at).toBeNull();
    // Operator-made merchants are approved when made.
    expect(t.merchant.live_approved_at).not.toBeNull();

    await addMerchantUser(t.deps, [waiting.id]);
    const shop = new ConsoleClient(t.app);
    await shop.logIn('shop@example.test');
    expect((await shop.get('/dashboard')).body).not.toContain('Live keys waiting for approval');
    const refused = await shop.post(`/dashboard/approvals/${waiting.id}`, {});
    expect(refused.statusCode).toBe(404);

    const ops = new ConsoleClient(t.app);
    await ops.logIn('ops@example.test');
    const overview = await ops.get('/dashboard');
    expect(overview.body).toContain('Live keys waiting for approval');
    expect(overview.body).toContain('Toko Baru');
    const approved = await ops.post(`/dashboard/approvals/${waiting.id}`, {});
    expect(approved.statusCode).toBe(303);
    const after = await ops.get(approved.headers.location as string);
    expect(after.body).toContain('Approved: its live keys work now.');
    expect(after.body).not.toContain('Toko Baru');
    const audit = await t.deps.db.selectFrom('audit_log').selectAll().where('action', '=', 'merchant.approve_live').execute();
    expect(audit.map((a) => [a.actor, a.subject_id])).toEqual([['user:ops@example.test', waiting.id]]);
    expect((await ops.post('/dashboard/approvals/mch_nope', {})).statusCode).toBe(404);
  });

  it('a merchant user sees its use of the daily quota on the overview', async () => {
    t = await createTestApp();
    await setDailyQuota(t.deps, t.merchant.id, 100, 'test');
    await t.app.inject({ url: '/api/payment-gateway/cqris?amount=10000', headers: { 'x-api-key': t.testKey } });
    await addMerchantUser(t.deps, [t.merchant.id]);
    const shop = new ConsoleClient(t.app);
    await shop.logIn('shop@example.test');
    const page = await shop.get('/dashboard');
    expect(page.body).toContain('Creates today (WIB)');
    expect(page.body).toContain('1 of 100');
  });

  it('with LIVE_KEYS=approval a waiting merchant\'s live key is refused and works once approved; its test key works at once', async () => {
    t = await createTestApp({ LIVE_KEYS: 'approval' });
    await addOperator(t.deps);
    const waiting = await createMerchant(t.deps, { name: 'Toko Baru', qris: vectors.vectors[1]!.static, liveApproved: false });
    const live = (await createApiKey(t.deps, { merchantId: waiting.id, mode: 'live' })).key;
    const test = (await createApiKey(t.deps, { merchantId: waiting.id, mode: 'test' })).key;
    const cqris = (key: string) => t.app.inject({ url: '/api/payment-gateway/cqris?amount=10000', headers: { 'x-api-key': key } });
    const refused = await cqris(live);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('live_not_approved');
    expect((await cqris(test)).statusCode).toBe(200);
    // The operator's own merchants were approved when made.
    expect((await cqris(t.liveKey)).statusCode).toBe(200);
    const ops = new ConsoleClient(t.app);
    await ops.logIn('ops@example.test');
    await ops.post(`/dashboard/approvals/${waiting.id}`, {});
    expect((await cqris(live)).statusCode).toBe(200);
  });
});
