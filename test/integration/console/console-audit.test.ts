import { userActor } from '../../../src/domain/actor.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { addMerchantUser, addOperator, ConsoleClient } from '../../helpers/console.js';
import { writeAudit } from '../../../src/services/audit.js';

describe('console audit log', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  /** Rows of the page's table: [when, who, what, subject, details] as text. */
  function rows(body: string): string[][] {
    const tbody = /<tbody>([\s\S]*?)<\/tbody>/.exec(body)?.[1] ?? '';
    return [...tbody.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((r) =>
      [...r[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) =>
        c[1]!
          .replace(/<[^>]+>/g, ' ')
          .replace(/\s+/g, ' ')
          .trim(),
      ),
    );
  }

  async function seed(count: number, email = 'a@example.test', action = 'transaction.cancel') {
    const base = Date.UTC(2025, 5, 1, 0, 0, 0);
    await t.deps.db.runInTransaction(async (trx) => {
      for (let i = 0; i < count; i++)
        await writeAudit(trx, {
          actor: userActor({ email }),
          action,
          subjectType: 'transaction',
          subjectId: `trx_${String(i).padStart(3, '0')}`,
          now: base + i * 1000,
        });
    });
  }

  it('is for operators only: a merchant user gets the 404 page, and no link to it', async () => {
    t = await createTestApp();
    await addMerchantUser(t.deps, [t.merchant.id]);
    const c = new ConsoleClient(t.app);
    await c.logIn('shop@example.test');
    const res = await c.get('/dashboard/audit');
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('There is nothing here, or it is not yours to see.');
    expect((await c.get('/dashboard')).body).not.toContain('href="/dashboard/audit"');
    // Logged out: route-common.test.ts.
  });

  it('shows who, what, the subject and when (WIB), newest first, with details escaped', async () => {
    t = await createTestApp();
    await addOperator(t.deps);
    await t.deps.db.runInTransaction((trx) =>
      writeAudit(trx, {
        actor: userActor({ email: '<script>@x' }),
        action: 'payment.confirm',
        subjectType: 'payment',
        subjectId: 'pay_1',
        details: { reference: '<img src=x onerror=alert(1)>', amount: 5000 },
        now: Date.UTC(2025, 0, 2, 17, 30, 0),
      }),
    );
    const c = new ConsoleClient(t.app);
    t.clock.advance(1000);
    await c.logIn('ops@example.test');
    const res = await c.get('/dashboard/audit');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<h1>Audit log</h1>');
    for (const th of ['When', 'Who', 'What', 'Subject']) expect(res.body).toContain(`<th>${th}</th>`);
    expect(res.body).not.toContain('<img src=x');
    expect(res.body).not.toContain('<script>@x');
    expect(res.body).toContain('reference: &lt;img src=x onerror=alert(1)&gt;');
    const table = rows(res.body);
    // The login is the newest entry; the confirm of 2 January (UTC) is the oldest.
    expect(table[0]!.slice(1, 3)).toEqual(['user:ops@example.test', 'user.login']);
    const last = table[table.length - 1]!;
    expect(last.slice(0, 4)).toEqual([
      '03 Jan 2025, 00:30:00 WIB',
      'user:&lt;script&gt;@x',
      'payment.confirm',
      'payment pay_1',
    ]);
    expect(last[4]).toContain('amount: 5000');
  });

  it('filters by actor and by action, and pages with a cursor', async () => {
    t = await createTestApp();
    await addOperator(t.deps);
    await seed(60);
    await seed(3, 'b@example.test', 'payment.assign');
    const c = new ConsoleClient(t.app);
    await c.logIn('ops@example.test');

    const first = await c.get('/dashboard/audit?action=transaction.cancel');
    const one = rows(first.body);
    expect(one).toHaveLength(50);
    expect(one[0]![3]).toBe('transaction trx_059');
    expect(one[49]![3]).toBe('transaction trx_010');
    const next = /<a href="([^"]+)" rel="next">Older entries →<\/a>/.exec(first.body)?.[1]?.replaceAll('&amp;', '&');
    expect(next).toMatch(/^\/dashboard\/audit\?action=transaction\.cancel&before=/);
    const second = await c.get(next!);
    const two = rows(second.body);
    expect(two.map((r) => r[3])).toEqual(
      Array.from({ length: 10 }, (_, i) => `transaction trx_${String(9 - i).padStart(3, '0')}`),
    );
    expect(second.body).not.toContain('rel="next"');
    expect(second.body).toContain('Newest entries');

    const byActor = rows((await c.get('/dashboard/audit?actor=user%3Ab%40example.test')).body);
    expect(byActor.map((r) => r[2])).toEqual(['payment.assign', 'payment.assign', 'payment.assign']);
    expect(
      rows((await c.get('/dashboard/audit?actor=user%3Ab%40example.test&action=transaction.cancel')).body),
    ).toEqual([]);
    expect((await c.get('/dashboard/audit?actor=nobody')).body).toContain('No entries.');
  });

  it('answers a forged cursor with an error page, not a failure', async () => {
    t = await createTestApp();
    await addOperator(t.deps);
    const c = new ConsoleClient(t.app);
    await c.logIn('ops@example.test');
    for (const before of ["1' or 1=1 --", '123.aud_x"', 'abc']) {
      const res = await c.get(`/dashboard/audit?before=${encodeURIComponent(before)}`);
      expect(res.statusCode, before).toBe(400);
      expect(res.body).toContain('the page cursor is not valid');
    }
  });

  it('records the console actions of this section: merchant add, rename, disable, key create and revoke', async () => {
    t = await createTestApp();
    await addOperator(t.deps);
    const c = new ConsoleClient(t.app);
    await c.logIn('ops@example.test');
    const from = `/dashboard/merchants/${t.merchant.id}`;
    await c.post(`/dashboard/merchants/${t.merchant.id}/rename`, { name: 'Renamed' }, from);
    await c.post(`/dashboard/merchants/${t.merchant.id}/disable`, {}, from);
    await c.post('/dashboard/keys', { merchant: t.merchant.id, mode: 'test' }, '/dashboard/keys');
    const actions = rows((await c.get('/dashboard/audit?actor=user%3Aops%40example.test')).body).map((r) => r[2]);
    expect(actions).toEqual(
      expect.arrayContaining(['merchant.rename', 'merchant.disable', 'api_key.create', 'user.login']),
    );
  });
});
