import { afterEach, describe, expect, it } from 'vitest';
import { createMerchant } from '../../src/services/merchants/create-merchant.js';
import { setDailyQuota } from '../../src/services/merchants/set-daily-quota.js';
import { createApiKey } from '../../src/services/merchants/create-api-key.js';
import { createTestApp, type TestApp, vectors } from '../helpers/context.js';
import { addMerchantUser, addOperator, ConsoleClient, csrfOf, TEST_ACTOR } from '../helpers/console.js';
import { loadConfig } from '../../src/config.js';

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
    await setDailyQuota(t.deps, t.merchant.id, 100, TEST_ACTOR);
    await t.app.inject({ url: '/api/payment-gateway/cqris?amount=10000', headers: { 'x-api-key': t.testKey } });
    await addMerchantUser(t.deps, [t.merchant.id]);
    const shop = new ConsoleClient(t.app);
    await shop.logIn('shop@example.test');
    const page = await shop.get('/dashboard');
    expect(page.body).toContain('Creates today (WIB)');
    expect(page.body).toContain('1 of 100');
  });

  it("with LIVE_KEYS=approval a waiting merchant's live key is refused and works once approved; its test key works at once", async () => {
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

  // issue 23, finding 7: without a cap one sign-up multiplied its quota and mail by adding merchants.
  it('a self-service user adds at most MERCHANTS_PER_USER merchants, even all at once; the portal says why', async () => {
    t = await createTestApp({ SIGNUP: 'invite', MERCHANTS_PER_USER: '2' });
    await addMerchantUser(t.deps, [t.merchant.id]);
    const shop = new ConsoleClient(t.app);
    await shop.logIn('shop@example.test');
    const token = csrfOf((await shop.get('/dashboard/merchants/new')).body);
    // Four saves at once, one place left (the operator's merchant it was invited to counts).
    const saves = await Promise.all(
      [1, 2, 3, 4].map((i) => shop.post('/dashboard/merchants', { _csrf: token, name: `Cabang ${i}`, qris: vectors.vectors[i % 3]!.static })),
    );
    expect(saves.map((r) => r.statusCode).sort()).toEqual([303, 403, 403, 403]);
    const refused = saves.find((r) => r.statusCode === 403)!;
    expect(refused.body).toContain('You already have 2 merchants, as many as one account may have on this gateway.');
    const mine = await t.deps.db.selectFrom('user_merchants').select('merchant_id').execute();
    expect(mine).toHaveLength(2);
    expect(await t.deps.db.selectFrom('merchants').select('id').execute()).toHaveLength(2);
    // The form itself says so, and so does its preview.
    const form = await shop.get('/dashboard/merchants/new');
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('You already have 2 merchants');
    expect(form.body).not.toContain('name="qris"');
    const preview = await shop.post('/dashboard/merchants/preview', { name: 'Cabang 5', qris: vectors.vectors[1]!.static }, '/dashboard/merchants');
    expect(preview.statusCode).toBe(403);
    // Operators are not limited.
    await addOperator(t.deps);
    const ops = new ConsoleClient(t.app);
    await ops.logIn('ops@example.test');
    for (const i of [6, 7, 8]) expect((await ops.post('/dashboard/merchants', { name: `Pusat ${i}`, qris: vectors.vectors[1]!.static })).statusCode).toBe(303);
  });

  it('MERCHANTS_PER_USER is a whole number, 3 unless set', () => {
    expect(loadConfig({}).merchantsPerUser).toBe(3);
    expect(loadConfig({ MERCHANTS_PER_USER: '0' }).merchantsPerUser).toBe(0);
    expect(() => loadConfig({ MERCHANTS_PER_USER: 'lots' })).toThrow(/MERCHANTS_PER_USER/);
  });
});
