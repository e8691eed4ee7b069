import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { createTestApp, seedMerchant, type TestApp } from '../../helpers/context.js';
import { addOperator, TEST_ACTOR } from '../../helpers/console.js';
import { setPaymentLinkHandle } from '../../../src/services/payment-links/set-handle.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { cancelTransaction } from '../../../src/services/transactions/cancel-transaction.js';
import { loadConfig } from '../../../src/config.js';
import { approveLive } from '../../../src/services/merchants/approve-live.js';
import { setDailyQuota } from '../../../src/services/merchants/set-daily-quota.js';
import { paymentLinkLimit } from '../../../src/web/payment-link-limit.js';
import { pino } from 'pino';
import type { Viewer } from '../../../src/domain/viewer.js';

const OPERATOR: Viewer = {
  userId: 'usr_test',
  email: 'ops@example.test',
  role: 'operator',
  merchantIds: [],
  sessionKey: 'k',
  actor: { kind: 'user' as const, email: 'ops@example.test' },
};
const TRX = /^\/checkout\/(trx_[0-9A-Za-z]+)$/;

describe('payment links: the public routes', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  async function setup(env: Record<string, string> = {}) {
    t = await createTestApp({ PAYMENT_LINK_CREATES_PER_MINUTE: '0', ...env });
    await addOperator(t.deps);
    await setPaymentLinkHandle(t.deps, OPERATOR, t.merchant.id, 'Warung-Saya');
  }

  const open = (url: string, opts: { ip?: string; lang?: string } = {}) =>
    t.app.inject({
      url,
      remoteAddress: opts.ip ?? '198.51.100.7',
      headers: opts.lang ? { 'accept-language': opts.lang } : {},
    });

  const cqris = (query: string, headers: Record<string, string> = {}) =>
    t.app.inject({ url: `/api/payment-gateway/cqris?${query}`, headers: { 'x-api-key': t.liveKey, ...headers } });

  async function trxOf(res: LightMyRequestResponse) {
    expect(res.statusCode, res.body).toBe(303);
    const id = TRX.exec(String(res.headers.location))?.[1];
    expect(id).toBeDefined();
    return await t.deps.db.selectFrom('transactions').selectAll().where('id', '=', id!).executeTakeFirstOrThrow();
  }

  function expectPage(res: LightMyRequestResponse, status: number, text: string) {
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.body).toContain(text);
    expect(res.body).not.toMatch(/"success"|at .*\.ts:\d+/);
  }

  it('opens a live transaction of the amount and sends the payer to its checkout page', async () => {
    await setup();
    const res = await open('/pay/warung-saya/25000?email=Payer@Example.COM');
    const tx = await trxOf(res);
    expect(tx).toMatchObject({
      merchant_id: t.merchant.id,
      mode: 'live',
      amount: 25000,
      email: 'Payer@example.com',
      status: 'pending',
      ref: null,
    });
    expect(tx.total_amount).toBeGreaterThan(25000);
    expect(res.headers['cache-control']).toBe('no-store');
    const checkout = await t.app.inject({ url: res.headers.location as string });
    expect(checkout.statusCode).toBe(200);
    expect(checkout.body).toContain(`Rp${tx.total_amount.toLocaleString('id-ID')}`);
    // The handle in the URL is read without regard to case; "25000.00" is the API's accepted spelling too.
    const again = await trxOf(await open('/pay/WARUNG-SAYA/25000.00?email=Payer@example.com'));
    expect(again.id).toBe(tx.id);
  });

  it('gives the same payer the same pending transaction for ten minutes, and others their own', async () => {
    await setup();
    const first = await trxOf(await open('/pay/warung-saya/30000'));
    // A reload, a link previewer's second fetch: the same transaction.
    expect((await trxOf(await open('/pay/warung-saya/30000'))).id).toBe(first.id);
    // Another address, another amount, an e-mail: each is another request.
    const elsewhere = await trxOf(await open('/pay/warung-saya/30000', { ip: '203.0.113.9' }));
    const other = await trxOf(await open('/pay/warung-saya/30001'));
    const withEmail = await trxOf(await open('/pay/warung-saya/30000?email=a@example.com'));
    expect(new Set([first.id, elsewhere.id, other.id, withEmail.id]).size).toBe(4);
    // IPv6 counts per /64, as the other per-client limits do.
    const v6a = await trxOf(await open('/pay/warung-saya/30000', { ip: '2001:db8:1:2::10' }));
    const v6b = await trxOf(await open('/pay/warung-saya/30000', { ip: '2001:db8:1:2::99' }));
    expect(v6b.id).toBe(v6a.id);
    // The next ten-minute window: a new transaction.
    t.clock.ms = (Math.floor(t.clock.ms / 600_000) + 1) * 600_000;
    const later = await trxOf(await open('/pay/warung-saya/30000'));
    expect(later.id).not.toBe(first.id);
    const count = await t.deps.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(6);
  });

  it('concurrent opens of one link by one payer make one transaction', async () => {
    await setup();
    const answers = await Promise.all(Array.from({ length: 8 }, () => open('/pay/warung-saya/41000')));
    const ids = new Set(answers.map((r) => r.headers.location));
    expect(answers.map((r) => r.statusCode)).toEqual(Array(8).fill(303));
    expect(ids.size).toBe(1);
  });

  it('a payer who already paid (or whose payment was cancelled) gets a new transaction in the same window', async () => {
    await setup();
    // Early in a window, so the clock does not cross into the next one below.
    t.clock.ms = Math.floor(t.clock.ms / 600_000) * 600_000 + 1000;
    const first = await trxOf(await open('/pay/warung-saya/15000'));
    await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'live',
      source: 'test',
      sourcePaymentId: 'p1',
      amount: first.total_amount,
      paidAt: t.clock.ms,
    });
    const second = await trxOf(await open('/pay/warung-saya/15000'));
    expect(second.id).not.toBe(first.id);
    expect(second.status).toBe('pending');
    expect((await trxOf(await open('/pay/warung-saya/15000'))).id).toBe(second.id);
    await cancelTransaction(t.deps, { trxid: second.id, owner: { merchantId: t.merchant.id, mode: 'live' } });
    const third = await trxOf(await open('/pay/warung-saya/15000'));
    expect(new Set([first.id, second.id, third.id]).size).toBe(3);
    expect((await trxOf(await open('/pay/warung-saya/15000'))).id).toBe(third.id);
  });

  it('with ?ref= the same order always opens the same transaction, and another amount is refused', async () => {
    await setup();
    const a = await trxOf(await open('/pay/warung-saya/50000?ref=ORDER-1'));
    // In the links' own namespace (issue 23, finding 6).
    expect(a.ref).toBe('link:ORDER-1');
    const b = await trxOf(await open('/pay/warung-saya/50000?ref=ORDER-1', { ip: '203.0.113.50' }));
    expect(b.id).toBe(a.id);
    const conflict = await open('/pay/warung-saya/60000?ref=ORDER-1');
    expectPage(conflict, 409, 'This order reference already belongs to a payment of another amount.');
    expect(conflict.body).toContain('href="/pay/warung-saya"');
    expectPage(await open('/pay/warung-saya/60000?ref=%20x'), 400, 'The order reference in this link is not valid.');
  });

  // issue 23, finding 6 (the first repro): an anonymous open of ?ref=order-A took the shop's order-A.
  it("a link's ref never takes the shop's: the shop's later create of that ref is its own, not a 409", async () => {
    await setup();
    const opened = await trxOf(await open('/pay/warung-saya/50000?ref=order-A'));
    const shop = await cqris('amount=70000&ref=order-A');
    expect(shop.statusCode, shop.body).toBe(200);
    expect(shop.headers['idempotent-replayed']).toBeUndefined();
    const made = shop.json().data;
    expect(made).toMatchObject({ ref: 'order-A', amount: 70000 });
    expect(made.trxid).not.toBe(opened.id);
    // Both stand: the shop's create again replays the shop's, the link's open again the link's.
    expect((await cqris('amount=70000&ref=order-A')).json().data.trxid).toBe(made.trxid);
    expect((await trxOf(await open('/pay/warung-saya/50000?ref=order-A', { ip: '203.0.113.5' }))).id).toBe(opened.id);
  });

  // issue 23, finding 6 (the second repro): the shop's create of order-B replayed the link's transaction,
  // whose invoice and receipt go to whoever opened the link.
  it("a link's ref never answers for the shop's: the shop's create of that ref is not the opener's transaction", async () => {
    await setup();
    const opened = await trxOf(await open('/pay/warung-saya/50000?ref=order-B&email=attacker@evil.test'));
    expect(opened.email).toBe('attacker@evil.test');
    const shop = await cqris('amount=50000&ref=order-B&email=buyer@shop.test');
    expect(shop.statusCode, shop.body).toBe(200);
    expect(shop.headers['idempotent-replayed']).toBeUndefined();
    const made = shop.json().data;
    expect(made).toMatchObject({ ref: 'order-B', email: 'buyer@shop.test' });
    expect(made.trxid).not.toBe(opened.id);
    const mails = await t.deps.db
      .selectFrom('emails')
      .select(['transaction_id', 'recipient'])
      .orderBy('created_at')
      .execute();
    expect(mails).toEqual([
      { transaction_id: opened.id, recipient: 'attacker@evil.test' },
      { transaction_id: made.trxid, recipient: 'buyer@shop.test' },
    ]);
    // The other way round: a link opened with the shop's ref makes its own transaction, never the shop's.
    const first = (await cqris('amount=40000&ref=order-C&email=buyer@shop.test')).json().data;
    const later = await trxOf(await open('/pay/warung-saya/40000?ref=order-C'));
    expect(later.id).not.toBe(first.trxid);
    expect(later).toMatchObject({ ref: 'link:order-C', email: null });
  });

  it("the API may not use the links' namespace for a ref or an Idempotency-Key", async () => {
    await setup();
    const opened = await trxOf(await open('/pay/warung-saya/50000?ref=order-D'));
    const byRef = await cqris('amount=50000&ref=link:order-D');
    expect(byRef.statusCode).toBe(400);
    expect(byRef.json().error).toMatchObject({ code: 'invalid_parameter', param: 'ref' });
    const byKey = await t.app.inject({
      method: 'POST',
      url: '/api/payment-gateway/cqris',
      headers: { 'x-api-key': t.liveKey, 'idempotency-key': 'link:anything' },
      payload: { amount: 50000 },
    });
    expect(byKey.statusCode).toBe(400);
    expect(byKey.json().error).toMatchObject({ code: 'invalid_parameter', param: 'Idempotency-Key' });
    const all = await t.deps.db.selectFrom('transactions').select('id').execute();
    expect(all.map((r) => r.id)).toEqual([opened.id]);
  });

  it("answers a bad amount or e-mail with a clear page in the payer's language, and creates nothing", async () => {
    await setup();
    expectPage(
      await open('/pay/warung-saya/25.000'),
      400,
      'The amount must be whole rupiah in digits only, e.g. 25000.',
    );
    expectPage(await open('/pay/warung-saya/-5'), 400, 'The amount must be whole rupiah in digits only');
    expectPage(await open('/pay/warung-saya/0'), 400, 'The amount must be between Rp1 and Rp9.999.999.');
    expectPage(await open('/pay/warung-saya/10000000'), 400, 'The amount must be between Rp1 and Rp9.999.999.');
    expectPage(await open('/pay/warung-saya/99999999999999999999'), 400, 'The amount must be between');
    expectPage(await open('/pay/warung-saya/25000?email=not-an-address'), 400, 'The e-mail address is not valid.');
    expectPage(await open('/pay/warung-saya/25000?email='), 400, 'The e-mail address is not valid.');
    expectPage(
      await open('/pay/warung-saya/25000?email=a@example.com&email=b@example.com'),
      400,
      'The e-mail address is not valid.',
    );
    const id = await open('/pay/warung-saya/25.000', { lang: 'id-ID,id;q=0.9,en;q=0.8' });
    expectPage(id, 400, 'Jumlah harus rupiah bulat, hanya angka, mis. 25000.');
    expect(id.body).toContain('<html lang="id">');
    const count = await t.deps.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it('answers an unknown, malformed or removed handle, and a disabled merchant, with a 404 page', async () => {
    await setup();
    for (const url of [
      '/pay/nobody-here/25000',
      '/pay/nobody-here',
      '/pay/a%20b/25000',
      '/pay/api/25000',
      '/pay',
      '/pay/warung-saya/25000/more',
    ]) {
      expectPage(await open(url), 404, 'There is no payment link at this address.');
    }
    expectPage(await open('/pay/nobody-here', { lang: 'id' }), 404, 'Tidak ada tautan pembayaran di alamat ini.');
    await t.deps.db.updateTable('merchants').set({ disabled_at: t.clock.ms }).where('id', '=', t.merchant.id).execute();
    const closed = await open('/pay/warung-saya/25000');
    expectPage(closed, 404, 'does not take payments through this link at the moment.');
    expect(closed.body).toContain(t.merchant.merchant_name);
    expectPage(await open('/pay/warung-saya'), 404, 'Payments are closed');
    await t.deps.db.updateTable('merchants').set({ disabled_at: null }).where('id', '=', t.merchant.id).execute();
    await setPaymentLinkHandle(t.deps, OPERATOR, t.merchant.id, null);
    expectPage(await open('/pay/warung-saya/25000'), 404, 'There is no payment link at this address.');
    const count = await t.deps.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it('answers an over-long URL and a fault of ours with a page too, never JSON or a stack trace', async () => {
    await setup();
    expectPage(await open(`/pay/warung-saya/25000?ref=${'x'.repeat(5000)}`), 414, 'This link is not valid.');
    await t.database.close();
    const failed = await open('/pay/warung-saya/25000');
    expectPage(failed, 500, 'The payment could not be started. Nothing was charged.');
    expect(failed.body).toContain(String(failed.headers['x-request-id']));
    expect(failed.body).not.toMatch(/closed|Error|sqlite|postgres/i);
  });

  it('a merchant whose live payments wait for approval gets no payments through its link until approved', async () => {
    await setup();
    await t.deps.db.updateTable('merchants').set({ live_approved_at: null }).where('id', '=', t.merchant.id).execute();
    const waiting = await open('/pay/warung-saya/25000');
    expectPage(waiting, 404, 'Payments are not open yet');
    expect(waiting.body).toContain('once the operator of this payment service has approved it');
    expectPage(await open('/pay/warung-saya', { lang: 'id' }), 404, 'Pembayaran belum dibuka');
    const none = await t.deps.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(none.n)).toBe(0);
    await approveLive(t.deps, OPERATOR, t.merchant.id);
    expect((await trxOf(await open('/pay/warung-saya/25000'))).mode).toBe('live');
  });

  // issue 23, finding 5: anonymous opens used up the merchant's API quota (default 100 a day), after which
  // the shop's own API answered 429 quota_exceeded for the rest of the day.
  it("holds link payments to a daily cap of their own: using it up leaves the merchant's API quota untouched", async () => {
    await setup({ PAYMENT_LINK_DAILY_CREATES: '3' });
    await setDailyQuota(t.deps, t.merchant.id, 5, TEST_ACTOR);
    const made = [];
    for (let i = 0; i < 3; i++)
      made.push(await trxOf(await open(`/pay/warung-saya/${25_000 + i}`, { ip: `203.0.113.${i + 1}` })));
    // Opening the same link again creates nothing, so it is never refused for the cap.
    expect((await trxOf(await open('/pay/warung-saya/25000', { ip: '203.0.113.1' }))).id).toBe(made[0]!.id);
    const over = await open('/pay/warung-saya/26000', { ip: '203.0.113.9' });
    expectPage(over, 429, 'cannot take more payments through this link today. Try again after midnight (WIB)');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(86_400);
    expectPage(
      await open('/pay/warung-saya/26000', { lang: 'id' }),
      429,
      'Tidak ada pembayaran lagi melalui tautan ini hari ini',
    );
    // The shop's own API still has all of its quota of 5: link opens counted nothing against it.
    const api = [];
    for (let i = 0; i < 5; i++) api.push(await cqris(`amount=${60_000 + i}`));
    expect(api.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(api.map((r) => r.headers['x-quota-remaining'])).toEqual(['4', '3', '2', '1', '0']);
    expect((await cqris('amount=61000')).statusCode).toBe(429);
    const counts = async (table: 'daily_creates' | 'link_daily_creates') =>
      (await t.deps.db.selectFrom(table).select('count').where('merchant_id', '=', t.merchant.id).execute()).map(
        (r) => r.count,
      );
    expect(await counts('daily_creates')).toEqual([5]);
    expect(await counts('link_daily_creates')).toEqual([3]);
  });

  it('a merchant without an API quota still has the link cap', async () => {
    await setup({ PAYMENT_LINK_DAILY_CREATES: '1' });
    await trxOf(await open('/pay/warung-saya/25000'));
    expectPage(await open('/pay/warung-saya/25001'), 429, 'No more payments through this link today');
    expect((await cqris('amount=25000')).statusCode).toBe(200);
  });

  it('HEAD of an amount link creates nothing', async () => {
    await setup();
    const res = await t.app.inject({ method: 'HEAD', url: '/pay/warung-saya/25000' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET');
    const count = await t.deps.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it("/pay/{handle} shows the merchant and a form for the amount, which goes on to the amount's link", async () => {
    await setup();
    const form = await open('/pay/warung-saya');
    expectPage(form, 200, `<h1>${t.merchant.merchant_name}</h1>`);
    expect(form.body).toContain('<label for="pay-amount">Amount</label>');
    expect(form.body).toContain('<label for="pay-email">Email</label>');
    expect(form.body).toMatch(/<form method="get" action="\/pay\/warung-saya"/);
    expect(form.body).toContain('<button type="submit">Pay</button>');
    expect(form.body).toMatch(/<link rel="stylesheet" href="\/pay\/assets\/pay-link\.[0-9a-f]{12}\.css">/);
    const css = await open(/href="(\/pay\/assets\/[^"]+)"/.exec(form.body)![1]!);
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toContain('text/css');
    expect(css.headers['cache-control']).toContain('immutable');

    const idForm = await open('/pay/warung-saya', { lang: 'id' });
    expect(idForm.body).toContain('<label for="pay-amount">Jumlah</label>');
    expect(idForm.body).toContain('<button type="submit">Bayar</button>');

    const go = await open('/pay/warung-saya?amount=Rp+25.000&email=');
    expect(go.statusCode).toBe(303);
    expect(go.headers.location).toBe('/pay/warung-saya/25000');
    const withEmail = await open('/pay/warung-saya?amount=12000&email=Payer%2Bx%40Example.com');
    expect(withEmail.headers.location).toBe('/pay/warung-saya/12000?email=Payer%2Bx%40example.com');
    expect((await trxOf(await open(withEmail.headers.location as string))).email).toBe('Payer+x@example.com');
    // Nothing is created by the form itself.
    const count = await t.deps.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });

  it('shows the form again with the problem and what was typed when the amount or e-mail is refused', async () => {
    await setup();
    const bad = await open('/pay/warung-saya?amount=25%2C5&email=');
    expectPage(
      bad,
      400,
      '<p class="notice error" role="alert">The amount must be whole rupiah in digits only, e.g. 25000.</p>',
    );
    expect(bad.body).toContain('value="25,5"');
    expectPage(await open('/pay/warung-saya?amount=&email='), 400, 'Type the amount to pay.');
    expectPage(await open('/pay/warung-saya?amount=0'), 400, 'The amount must be between Rp1 and Rp9.999.999.');
    const email = await open('/pay/warung-saya?amount=25000&email=%3Cscript%3E');
    expectPage(email, 400, 'The e-mail address is not valid.');
    // What was typed is shown escaped.
    expect(email.body).toContain('value="&lt;script&gt;"');
    expect(email.body).not.toContain('<script>');
    expectPage(await open('/pay/warung-saya?amount=1&amount=2'), 400, 'The amount must be whole rupiah');
  });

  it('limits how many payments one address starts per minute, with a 429 page and Retry-After', async () => {
    await setup({ PAYMENT_LINK_CREATES_PER_MINUTE: '3' });
    t.clock.ms = Math.floor(t.clock.ms / 60_000) * 60_000 + 30_000;
    for (let i = 0; i < 3; i++) expect((await open(`/pay/warung-saya/${20000 + i}`)).statusCode).toBe(303);
    const refused = await open('/pay/warung-saya/20009');
    expectPage(refused, 429, 'Too many payments were started from your connection. Try again in 30 seconds.');
    expect(refused.headers['retry-after']).toBe('30');
    expectPage(await open('/pay/warung-saya/20009', { lang: 'id' }), 429, 'Terlalu banyak pembayaran');
    // Another address has its own count; the form page is not limited.
    expect((await open('/pay/warung-saya/20009', { ip: '203.0.113.77' })).statusCode).toBe(303);
    expect((await open('/pay/warung-saya')).statusCode).toBe(200);
    t.clock.advance(30_000);
    expect((await open('/pay/warung-saya/20009')).statusCode).toBe(303);
    const count = await t.deps.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(5);
  });

  it('links of two merchants start payments of their own merchant', async () => {
    await setup();
    const other = await seedMerchant(t.deps, 1, 'Toko Lain');
    await setPaymentLinkHandle(t.deps, OPERATOR, other.merchant.id, 'toko-lain');
    expect((await trxOf(await open('/pay/toko-lain/25000'))).merchant_id).toBe(other.merchant.id);
    expect((await trxOf(await open('/pay/warung-saya/25000'))).merchant_id).toBe(t.merchant.id);
  });
});

// The machine's Redis (CI starts it); TEST_REDIS_URL overrides.
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const silent = pino({ level: 'silent' });

describe('the payment-link limit with REDIS_URL', () => {
  it('is counted in Redis, so every instance shares it', async () => {
    const config = loadConfig({ REDIS_URL, PAYMENT_LINK_CREATES_PER_MINUTE: '2' });
    const prefix = `qg:test:${randomBytes(6).toString('hex')}:`;
    const limits = [
      paymentLinkLimit(config, Date.now, silent, prefix)!,
      paymentLinkLimit(config, Date.now, silent, prefix)!,
    ];
    try {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push((await limits[i % 2]!.take('198.51.100.1')).allowed);
      expect(answers).toEqual([true, true, false]);
      expect((await limits[1]!.take('198.51.100.2')).allowed).toBe(true);
    } finally {
      for (const l of limits) await l.close();
    }
  });
});
