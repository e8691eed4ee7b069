// Issue 27, section 3: a cashier sees the point of sale, its merchants' transactions of today and its own
// account, and nothing else. Generated from the console's route table, so a section added tomorrow is a
// 404 to a cashier the day it is added unless it is named below. The parameters are filled with the
// cashier's own merchant's real objects, so a 404 here is the section refused, not an unknown id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../../../src/http/route-table.js';
import { addUser } from '../../../src/services/users/add-user.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { ConsoleClient, csrfOf, PASSWORD, TEST_ACTOR } from '../../helpers/console.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { addMerchantUser, addOperator } from '../../helpers/console.js';
import { createInput, createTestApp, type TestApp } from '../../helpers/context.js';

/** What a cashier may open (method and route pattern); everything else of the console is a 404 to it. */
const CASHIER_MAY = [
  /^GET \/dashboard\/pos(\/.*)?$/,
  /^POST \/dashboard\/pos(\/:trxid\/(cancel|simulate|receipt))?$/,
  /^GET \/dashboard\/pos-sw\.js$/,
  /^GET \/dashboard\/transactions(\/:trxid)?$/,
  // The receipt link the cashier shows or sends the payer.
  /^POST \/dashboard\/transactions\/:trxid\/receipt$/,
  /^GET \/dashboard\/soundbox(\/events)?$/,
  // Deleting the account is refused to a cashier by the service (only a merchant's owner may), not hidden.
  /^(GET|POST) \/dashboard\/account(\/password|\/delete)?$/,
  /^POST \/dashboard\/logout$/,
  /^GET \/dashboard\/lang\/:lang$/,
  /^GET \/dashboard\/assets\//,
];

describe('a cashier in the console', () => {
  let t: TestApp;
  let c: ConsoleClient;
  let trxid: string;
  let yesterdays: string;
  /** A sale this cashier made at the point of sale (the point of sale's own pages are given this one). */
  let sale: string;

  beforeAll(async () => {
    t = await createTestApp({ CONSOLE: 'true' });
    await addUser(
      t.deps,
      { email: 'kasir@example.test', password: PASSWORD, role: 'cashier', merchantIds: [t.merchant.id] },
      TEST_ACTOR,
    );
    yesterdays = (await createTransaction(t.deps, createInput(t.merchant.id, 11_000))).transaction.id;
    t.clock.advance(24 * 3600_000);
    const today = (await createTransaction(t.deps, createInput(t.merchant.id, 10_000))).transaction;
    trxid = today.id;
    // Paid, so that its receipt link can be made.
    await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: today.mode,
      source: 'manual',
      sourcePaymentId: `bank-${today.id}`,
      amount: today.total_amount,
      paidAt: t.clock.now(),
      reference: null,
      issuer: null,
    });
    c = new ConsoleClient(t.app);
    expect((await c.logIn('kasir@example.test')).statusCode).toBe(303);
    sale = await sell(c, '12000');
  });

  /** A sale through the point of sale's own form, as the keypad sends it; its trxid. */
  async function sell(client: ConsoleClient, amount: string): Promise<string> {
    const key = `sale-key-${Math.random().toString(36).slice(2)}-0000`;
    const res = await client.post(
      '/dashboard/pos',
      { merchant: t.merchant.id, amount, note: '', key },
      '/dashboard/pos',
    );
    expect(res.statusCode, res.body).toBe(303);
    return /^\/dashboard\/pos\/(trx_\w+)$/.exec(String(res.headers.location))![1]!;
  }
  afterAll(async () => t?.close());

  it('is sent from the front door to the point of sale', async () => {
    const res = await c.get('/dashboard');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/pos');
  });

  it('gets a 404 on every console route it may not see, and not on the ones it may', async () => {
    const own: Record<string, string> = { merchantId: t.merchant.id, trxid, id: t.merchant.id, lang: 'en' };
    const token = csrfOf((await c.get('/dashboard/pos')).body);
    const refused: string[] = [];
    const allowed: string[] = [];
    const routes = routeTable(t.app).filter(
      (r) => r.url.startsWith('/dashboard') && (r.method === 'GET' || r.method === 'POST'),
    );
    for (const route of routes) {
      const name = `${route.method} ${route.url}`;
      const may = CASHIER_MAY.some((re) => re.test(name));
      // Public routes (the login form, sign-up, account links) ask for no session: nobody's section.
      if (route.config.consolePublic && !may) continue;
      // Logging out would end the walk; it is open to everyone and tested elsewhere.
      if (name === 'POST /dashboard/logout') continue;
      // The point of sale opens the cashier's own sales only (the next test); everything else, any of today's.
      const url = route.url.replace(
        /:(\w+)/g,
        (_m, p: string) => (p === 'trxid' && route.url.startsWith('/dashboard/pos/') ? sale : own[p]) ?? 'x',
      );
      // The soundbox's stream never ends by itself: HEAD runs its handler and ends with the headers.
      const res =
        route.url === '/dashboard/soundbox/events'
          ? await c.head(`${url}?merchant=${t.merchant.id}`)
          : route.method === 'GET'
            ? await c.get(url)
            : await c.post(url, { _csrf: token }, '/dashboard/pos');
      if (may) {
        allowed.push(name);
        expect(res.statusCode, `${name} must be open to a cashier`).not.toBe(404);
      } else {
        refused.push(name);
        expect(res.statusCode, `${name} must be a 404 to a cashier`).toBe(404);
      }
    }
    // The walk saw the sections that matter (a table that lost them would make this test pass emptily).
    for (const section of [
      'GET /dashboard/keys',
      'GET /dashboard/webhooks',
      'GET /dashboard/sources',
      'GET /dashboard/links',
      'GET /dashboard/transactions.csv',
      'GET /dashboard/users',
      'POST /dashboard/users/invite',
      'GET /dashboard/merchants',
      'GET /dashboard/audit',
      'POST /dashboard/transactions/:trxid/cancel',
    ]) {
      expect(refused, section).toContain(section);
    }
    expect(allowed).toEqual(
      expect.arrayContaining([
        'GET /dashboard/pos',
        'POST /dashboard/pos',
        'GET /dashboard/transactions',
        'GET /dashboard/transactions/:trxid',
        'POST /dashboard/transactions/:trxid/receipt',
        'GET /dashboard/soundbox',
      ]),
    );
  });

  it('sees only its merchants’ transactions of today', async () => {
    expect((await c.get(`/dashboard/transactions/${trxid}`)).statusCode).toBe(200);
    expect((await c.get(`/dashboard/transactions/${yesterdays}`)).statusCode).toBe(404);
    expect((await c.get(`/dashboard/pos/${yesterdays}`)).statusCode).toBe(404);
    const list = await c.get('/dashboard/transactions?from=2000-01-01');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(trxid);
    expect(list.body).not.toContain(yesterdays);
  });

  it('opens and cancels only its own sales at the point of sale; an owner and an operator keep their cancels (issue 35, finding 4)', async () => {
    await addUser(
      t.deps,
      { email: 'kasir2@example.test', password: PASSWORD, role: 'cashier', merchantIds: [t.merchant.id] },
      TEST_ACTOR,
    );
    await addMerchantUser(t.deps, [t.merchant.id], 'owner@example.test');
    await addOperator(t.deps);
    const other = new ConsoleClient(t.app);
    expect((await other.logIn('kasir2@example.test')).statusCode).toBe(303);
    const statusOf = async (id: string) =>
      (await t.deps.db.selectFrom('transactions').select('status').where('id', '=', id).executeTakeFirstOrThrow())
        .status;

    const mine = await sell(c, '13000');
    const theirs = await sell(other, '14000');
    // The shop's own order, made through the API: nobody's sale.
    const order = (await createTransaction(t.deps, createInput(t.merchant.id, 15_000, { ref: 'web-order-1' })))
      .transaction.id;
    for (const id of [theirs, order]) {
      expect((await c.get(`/dashboard/pos/${id}`)).statusCode, id).toBe(404);
      expect((await c.post(`/dashboard/pos/${id}/cancel`, {}, '/dashboard/pos')).statusCode, id).toBe(404);
      expect(await statusOf(id), id).toBe('pending');
      // Still one of its merchant's transactions of today: its page reads, its actions are not the cashier's.
      expect((await c.get(`/dashboard/transactions/${id}`)).statusCode, id).toBe(200);
      expect((await c.post(`/dashboard/transactions/${id}/cancel`, {}, '/dashboard/pos')).statusCode, id).toBe(404);
    }
    expect((await other.get(`/dashboard/pos/${mine}`)).statusCode).toBe(404);

    // Its own sale: the sale screen with Cancel, and the cancel.
    const screen = await c.get(`/dashboard/pos/${mine}`);
    expect(screen.statusCode).toBe(200);
    expect(screen.body).toContain(`action="/dashboard/pos/${mine}/cancel"`);
    const cancelled = await c.post(`/dashboard/pos/${mine}/cancel`, {}, '/dashboard/pos');
    expect(cancelled.statusCode).toBe(303);
    expect(cancelled.headers.location).toBe('/dashboard/pos');
    expect(await statusOf(mine)).toBe('cancelled');

    // The merchant's owner cancels a cashier's sale, and an operator the shop's order, as before.
    const owner = new ConsoleClient(t.app);
    expect((await owner.logIn('owner@example.test')).statusCode).toBe(303);
    expect((await owner.get(`/dashboard/pos/${theirs}`)).statusCode).toBe(200);
    expect(
      (await owner.post(`/dashboard/transactions/${theirs}/cancel`, {}, `/dashboard/transactions/${theirs}`))
        .statusCode,
    ).toBe(303);
    expect(await statusOf(theirs)).toBe('cancelled');
    const operator = new ConsoleClient(t.app);
    expect((await operator.logIn('ops@example.test')).statusCode).toBe(303);
    expect((await operator.post(`/dashboard/pos/${order}/cancel`, {}, `/dashboard/pos/${order}`)).statusCode).toBe(303);
    expect(await statusOf(order)).toBe('cancelled');
  });
});
