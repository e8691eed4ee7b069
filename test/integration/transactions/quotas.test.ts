import { TEST_ACTOR } from '../../helpers/console.js';
import { afterEach, describe, expect, it } from 'vitest';
import { secondsToWibMidnight, wibDayStart } from '../../../src/domain/wib.js';
import { setDailyQuota } from '../../../src/services/merchants/set-daily-quota.js';
import { newServiceState } from '../../../src/services/state.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { createLinkTransaction } from '../../../src/services/payment-links/create-link-transaction.js';
import { openDatabase } from '../../../src/storage/database.js';
import { createInput, createTestApp, type TestApp } from '../../helpers/context.js';

describe('daily create quotas', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  const cqris = (amount: number, extra = '') =>
    t.app.inject({ url: `/api/payment-gateway/cqris?amount=${amount}${extra}`, headers: { 'x-api-key': t.testKey } });

  it('a quota of 3 gives the fourth create a 429 quota_exceeded until midnight WIB, with the rest in headers', async () => {
    t = await createTestApp();
    // Noon in Jakarta, so the day's end is 12 hours off.
    t.clock.ms = wibDayStart(Date.now()) + 12 * 3600_000;
    await setDailyQuota(t.deps, t.merchant.id, 3, TEST_ACTOR);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await cqris(10_000 + i));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
    expect(answers.map((a) => a.headers['x-quota-remaining'])).toEqual(['2', '1', '0']);
    expect(answers[0]!.headers['x-quota-limit']).toBe('3');
    expect(answers[0]!.headers['x-quota-reset']).toBe(String(12 * 3600));
    const fourth = await cqris(10_003);
    expect(fourth.statusCode).toBe(429);
    expect(fourth.json().error.code).toBe('quota_exceeded');
    expect(fourth.headers['retry-after']).toBe(String(secondsToWibMidnight(t.clock.ms)));
    // A repeated ref is a replay, not a create: never refused, never counted.
    t.clock.ms = wibDayStart(t.clock.ms) + 86_400_000 + 60_000;
    expect((await cqris(20_000, '&ref=order-1')).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expect((await cqris(20_000, '&ref=order-1')).headers['x-quota-remaining']).toBe('2');
    // The next WIB day counts from zero again (this is it): two more fit, then none.
    expect((await cqris(20_001)).statusCode).toBe(200);
    expect((await cqris(20_002)).statusCode).toBe(200);
    expect((await cqris(20_003)).statusCode).toBe(429);
    // A merchant without a quota sends no quota headers.
    await setDailyQuota(t.deps, t.merchant.id, null, TEST_ACTOR);
    const free = await cqris(30_000);
    expect(free.statusCode).toBe(200);
    expect(free.headers['x-quota-limit']).toBeUndefined();
  });

  it('of 25 simultaneous creates against a quota of 3, exactly 3 are made and counted', async () => {
    t = await createTestApp();
    await setDailyQuota(t.deps, t.merchant.id, 3, TEST_ACTOR);
    const settled = await Promise.allSettled(
      Array.from({ length: 25 }, (_, i) => createTransaction(t.deps, createInput(t.merchant.id, 40_000 + i))),
    );
    const made = settled.filter((s) => s.status === 'fulfilled');
    expect(made).toHaveLength(3);
    for (const s of settled)
      if (s.status === 'rejected') expect((s.reason as { code: string }).code).toBe('quota_exceeded');
    expect(await t.deps.db.selectFrom('transactions').select('id').execute()).toHaveLength(3);
    const counted = await t.deps.db.selectFrom('daily_creates').selectAll().execute();
    expect(counted.map((c) => c.count)).toEqual([3]);
  });

  it('two gateway instances share one count', async () => {
    t = await createTestApp();
    await setDailyQuota(t.deps, t.merchant.id, 3, TEST_ACTOR);
    const second = openDatabase(t.databaseUrl);
    try {
      const other = { ...t.deps, db: second, state: newServiceState() };
      const settled = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          createTransaction(i % 2 === 0 ? t.deps : other, createInput(t.merchant.id, 50_000 + i)),
        ),
      );
      expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(3);
      expect(await t.deps.db.selectFrom('transactions').select('id').execute()).toHaveLength(3);
    } finally {
      await second.close();
    }
  });

  it('a create that fails after counting takes its count back', async () => {
    t = await createTestApp();
    await setDailyQuota(t.deps, t.merchant.id, 2, TEST_ACTOR);
    // An Idempotency-Key reused with another request fails without creating, and without counting.
    const post = (amount: number) =>
      t.app.inject({
        method: 'POST',
        url: '/api/payment-gateway/cqris',
        headers: { 'x-api-key': t.testKey, 'idempotency-key': 'same-key' },
        payload: { amount },
      });
    expect((await post(60_000)).statusCode).toBe(201);
    expect((await post(60_001)).statusCode).toBe(409);
    expect((await cqris(60_002)).headers['x-quota-remaining']).toBe('0');
  });

  // issue 23, finding 5: payment links' creates have a daily cap of their own, counted as exactly as the quota.
  it('of 24 simultaneous link payments on two instances against a link cap of 4, exactly 4 are made; the API quota is untouched', async () => {
    t = await createTestApp({ PAYMENT_LINK_DAILY_CREATES: '4' });
    await setDailyQuota(t.deps, t.merchant.id, 2, TEST_ACTOR);
    const second = openDatabase(t.databaseUrl);
    try {
      const other = { ...t.deps, db: second, state: newServiceState() };
      const link = (i: number) => ({
        merchantId: t.merchant.id,
        handle: 'warung',
        amount: 70_000 + i,
        email: null,
        ref: i % 3 === 0 ? `order-${i}` : null,
        clientKey: `203.0.113.${i}`,
      });
      const settled = await Promise.allSettled(
        Array.from({ length: 24 }, (_, i) => createLinkTransaction(i % 2 === 0 ? t.deps : other, link(i))),
      );
      expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(4);
      for (const s of settled)
        if (s.status === 'rejected') expect((s.reason as { code: string }).code).toBe('quota_exceeded');
      expect(await t.deps.db.selectFrom('transactions').select('id').execute()).toHaveLength(4);
      expect((await t.deps.db.selectFrom('link_daily_creates').select('count').execute()).map((r) => r.count)).toEqual([
        4,
      ]);
      expect(await t.deps.db.selectFrom('daily_creates').select('count').execute()).toEqual([]);
      // The merchant's own creates still have their whole quota.
      expect((await cqris(80_000)).headers['x-quota-remaining']).toBe('1');
    } finally {
      await second.close();
    }
  });
});
