// The console side of reports without a browser: the merchant page's daily report e-mail switch (owner
// and operator, CSRF, another merchant's a 404) and the report's CSV and range refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMerchantUser, addOperator, ConsoleClient } from '../../helpers/console.js';
import { createTestApp, seedMerchant, type TestApp } from '../../helpers/context.js';

let t: TestApp;
let other = '';
const optedIn = async (id: string) =>
  (await t.deps.db.selectFrom('merchants').select('daily_report_email').where('id', '=', id).executeTakeFirstOrThrow())
    .daily_report_email;

beforeAll(async () => {
  t = await createTestApp();
  other = (await seedMerchant(t.deps, 1, 'Other Shop')).merchant.id;
  await addMerchantUser(t.deps, [t.merchant.id], 'owner@shop.test');
  await addOperator(t.deps);
});
afterAll(async () => t?.close());

describe('the daily report e-mail switch on the merchant page', () => {
  it("an owner turns its merchant's report on and off; another merchant's is a 404; the audit log has it", async () => {
    const c = new ConsoleClient(t.app);
    await c.logIn('owner@shop.test');
    const page = `/dashboard/merchants/${t.merchant.id}`;
    expect((await c.get(page)).body).toContain('Send the daily report');
    const on = await c.post(`${page}/daily-report`, { daily_report: 'on' }, page);
    expect(on.statusCode).toBe(303);
    expect(await optedIn(t.merchant.id)).toBe(1);
    expect((await c.get(page)).body).toContain('Stop the daily report');
    await c.post(`${page}/daily-report`, { daily_report: 'off' }, page);
    expect(await optedIn(t.merchant.id)).toBe(0);

    const foreign = await c.post(`/dashboard/merchants/${other}/daily-report`, { daily_report: 'on' }, page);
    expect(foreign.statusCode).toBe(404);
    expect(await optedIn(other)).toBe(0);
    const audits = await t.deps.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'merchant.daily_report')
      .execute();
    expect(audits.map((a) => [a.actor, a.subject_id])).toEqual([
      ['user:owner@shop.test', t.merchant.id],
      ['user:owner@shop.test', t.merchant.id],
    ]);
  });

  it('a post without the CSRF token is refused and changes nothing', async () => {
    const c = new ConsoleClient(t.app);
    await c.logIn('owner@shop.test');
    const res = await c.post(`/dashboard/merchants/${t.merchant.id}/daily-report`, {
      daily_report: 'on',
      _csrf: 'forged',
    });
    expect(res.statusCode).toBe(403);
    expect(await optedIn(t.merchant.id)).toBe(0);
  });

  it('an operator may switch any merchant', async () => {
    const c = new ConsoleClient(t.app);
    await c.logIn('ops@example.test');
    await c.post(`/dashboard/merchants/${other}/daily-report`, { daily_report: 'on' }, `/dashboard/merchants/${other}`);
    expect(await optedIn(other)).toBe(1);
  });
});

describe('the reports page', () => {
  it('says a bad range on the page (400), and the CSV of another merchant is a 404 to an owner', async () => {
    const c = new ConsoleClient(t.app);
    await c.logIn('owner@shop.test');
    const bad = await c.get('/dashboard/reports?from=2026-10-05&to=2026-10-01');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('not a valid range');
    expect((await c.get('/dashboard/reports?from=2026-01-01&to=2027-01-02')).statusCode).toBe(400);
    expect((await c.get('/dashboard/reports?mode=both')).statusCode).toBe(400);
    expect((await c.get(`/dashboard/reports.csv?merchant=${other}`)).statusCode).toBe(404);
    const csv = await c.get('/dashboard/reports.csv?from=2026-10-01&to=2026-10-03');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-disposition']).toBe(
      'attachment; filename="daily-report-live-2026-10-01-2026-10-03.csv"',
    );
    expect(csv.body.trim().split('\r\n')).toHaveLength(4);
  });

  it('an operator sees every merchant, one row per merchant and day', async () => {
    const c = new ConsoleClient(t.app);
    await c.logIn('ops@example.test');
    const csv = await c.get('/dashboard/reports.csv?from=2026-10-01&to=2026-10-03');
    expect(csv.body.trim().split('\r\n')).toHaveLength(7);
    const page = await c.get('/dashboard/reports?from=2026-10-01&to=2026-10-03');
    expect(page.body).toContain('Other Shop');
  });
});
