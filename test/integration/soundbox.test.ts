// The soundbox's payment stream (issue 27, section 2) over real HTTP, on both databases: who may open it,
// its cap per user, every paid transaction announced once whichever gateway recorded it, and a
// reconnect resuming after its Last-Event-ID with nothing lost and nothing repeated.
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { silentLogger } from '../../src/http/logger.js';
import { codeIssuers } from '../../src/payment-sources/issuers.js';
import { sourceCatalog } from '../../src/payment-sources/kinds.js';
import { simulatePayment } from '../../src/payment-sources/simulator.js';
import type { Deps } from '../../src/services/deps.js';
import { newServiceState } from '../../src/services/state.js';
import { createTransaction } from '../../src/services/transactions/create-transaction.js';
import { openDatabase } from '../../src/storage/database.js';
import { SOUNDBOX_STREAMS_PER_USER } from '../../src/web/console/pages/soundbox.js';
import { addMerchantUser, addOperator, ConsoleClient } from '../helpers/console.js';
import { createInput, createTestApp, seedMerchant, type Seeded, type TestApp } from '../helpers/context.js';
import { openEventStream, type EventStream } from '../helpers/event-stream.js';

interface SseEvent {
  event: string;
  id: string | null;
  data: Record<string, any>;
}

/** The stream's events (comments and `retry` left out), in order. */
function sse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .map((block) => {
      const field = (name: string) => new RegExp(`^${name}: ?(.*)$`, 'm').exec(block)?.[1];
      const event = field('event');
      const data = field('data');
      return event && data ? { event, id: field('id') ?? null, data: JSON.parse(data) } : null;
    })
    .filter((e): e is SseEvent => e !== null);
}
const payments = (s: EventStream) => sse(s.text).filter((e) => e.event === 'payment');
const lastId = (s: EventStream) =>
  sse(s.text)
    .filter((e) => e.id !== null)
    .at(-1)!.id!;

describe('soundbox stream', () => {
  let t: TestApp | null = null;
  let other: Seeded;
  let base = '';
  const streams: EventStream[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const s of streams.splice(0)) s.close();
    for (const c of cleanups.splice(0)) await c();
    await t?.close();
    t = null;
  });

  async function setup(): Promise<TestApp> {
    t = await createTestApp({ STATUS_WATCH_INTERVAL_MS: '50' });
    other = await seedMerchant(t.deps, 1, 'Toko Lain');
    await addOperator(t.deps);
    await addMerchantUser(t.deps, [t.merchant.id], 'shop@example.test');
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    return t;
  }

  async function cookieOf(email: string): Promise<string> {
    const c = new ConsoleClient(t!.app);
    expect((await c.logIn(email)).statusCode).toBe(303);
    return c.jar.header();
  }

  async function open(cookie: string, merchantId: string, headers: Record<string, string> = {}): Promise<EventStream> {
    const s = await openEventStream(`${base}/dashboard/soundbox/events?merchant=${merchantId}`, { cookie, ...headers });
    streams.push(s);
    return s;
  }
  /** A stream that answered and sent its hello. */
  async function opened(cookie: string, merchantId: string, headers: Record<string, string> = {}): Promise<EventStream> {
    const s = await open(cookie, merchantId, headers);
    expect(s.status, s.text).toBe(200);
    await s.waitFor((text) => sse(text).some((e) => e.event === 'hello'), 5000, 'hello');
    return s;
  }
  async function paid(deps: Deps, merchantId: string, amount: number): Promise<{ id: string; total: number }> {
    const { transaction } = await createTransaction(deps, createInput(merchantId, amount));
    await simulatePayment(deps, { merchantId, mode: 'test' }, transaction.id);
    return { id: transaction.id, total: transaction.total_amount };
  }
  const heard = (s: EventStream, n: number) => s.waitFor((text) => sse(text).filter((e) => e.event === 'payment').length >= n, 5000, `${n} payments`);

  it('is the login form when logged out, and a 404 for another merchant or an unknown one', async () => {
    await setup();
    const loggedOut = await t!.app.inject({ method: 'GET', url: `/dashboard/soundbox/events?merchant=${t!.merchant.id}` });
    expect(loggedOut.statusCode).toBe(303);
    expect(loggedOut.headers.location).toMatch(/^\/dashboard\?next=/);

    const shop = await cookieOf('shop@example.test');
    for (const merchant of [other.merchant.id, 'mch_nosuchmerchant', '']) {
      const s = await open(shop, merchant);
      await s.waitForEnd();
      expect(s.status).toBe(404);
    }
    const page = await t!.app.inject({ method: 'GET', url: `/dashboard/soundbox?merchant=${other.merchant.id}`, headers: { cookie: shop } });
    expect(page.statusCode).toBe(404);

    // An operator may follow any merchant.
    const ops = await cookieOf('ops@example.test');
    const s = await opened(ops, other.merchant.id);
    expect(s.headers['content-type']).toBe('text/event-stream; charset=utf-8');
  });

  it('lists the day so far without announcing it, then announces each new payment once, with the totals', async () => {
    await setup();
    const before = await paid(t!.deps, t!.merchant.id, 10_000);
    const shop = await cookieOf('shop@example.test');
    const s = await opened(shop, t!.merchant.id);
    const hello = sse(s.text).find((e) => e.event === 'hello')!;
    expect(hello.data.recent.map((p: { trxid: string }) => p.trxid)).toEqual([before.id]);
    expect(hello.data.totals.test).toContain(`Rp${String(before.total).replace(/\B(?=(\d{3})+$)/g, '.')}`);
    expect(payments(s)).toEqual([]);

    const next = await paid(t!.deps, t!.merchant.id, 25_000);
    // Another merchant's payment is not this soundbox's.
    await paid(t!.deps, other.merchant.id, 30_000);
    await heard(s, 1);
    const [event] = payments(s);
    expect(event!.data.payment.trxid).toBe(next.id);
    expect(event!.data.say).toMatch(/^Payment received\. Twenty-five thousand .* rupiah\.$/);
    expect(event!.data.totals.test).toContain('2 payments');
    // Nothing more arrives for the other merchant's payment or the same one again.
    await paid(t!.deps, t!.merchant.id, 26_000);
    await heard(s, 2);
    expect(payments(s).map((e) => e.data.payment.trxid)).toEqual([next.id, expect.not.stringMatching(next.id)]);
  });

  it('hears a payment another gateway on the same database recorded', async () => {
    await setup();
    // A second gateway: its own connection and its own status bus, as another process has.
    const database = openDatabase(t!.databaseUrl);
    cleanups.push(() => database.close());
    const second: Deps = {
      db: database,
      config: loadConfig({ DATABASE_URL: t!.databaseUrl }),
      now: Date.now,
      logger: silentLogger(),
      issuers: codeIssuers,
      sources: sourceCatalog,
      state: newServiceState(),
    };
    const s = await opened(await cookieOf('shop@example.test'), t!.merchant.id);
    const elsewhere = await paid(second, t!.merchant.id, 40_000);
    await heard(s, 1);
    expect(payments(s)[0]!.data.payment.trxid).toBe(elsewhere.id);
  });

  it('resumes after Last-Event-ID: what came meanwhile once, nothing heard before again, a late commit too', async () => {
    await setup();
    const shop = await cookieOf('shop@example.test');
    const first = await opened(shop, t!.merchant.id);
    const clock = t!.clock;
    const p1 = await paid(t!.deps, t!.merchant.id, 11_000);
    clock.advance(10_000);
    const p2 = await paid(t!.deps, t!.merchant.id, 12_000);
    await heard(first, 2);
    expect(payments(first).map((e) => e.data.payment.trxid)).toEqual([p1.id, p2.id]);
    const position = lastId(first);
    first.close();

    // While the page is away: a payment, and one whose commit lagged its time (recorded "before" p2).
    clock.advance(5_000);
    const p3 = await paid(t!.deps, t!.merchant.id, 13_000);
    clock.ms -= 10_000;
    const late = await paid(t!.deps, t!.merchant.id, 14_000);
    clock.ms += 10_000;

    const resumed = await opened(shop, t!.merchant.id, { 'last-event-id': position });
    await heard(resumed, 2);
    const hello = sse(resumed.text).find((e) => e.event === 'hello')!;
    expect(hello.data.recent.map((p: { trxid: string }) => p.trxid)).toEqual([p1.id, p2.id]);
    expect(new Set(payments(resumed).map((e) => e.data.payment.trxid))).toEqual(new Set([p3.id, late.id]));

    // Resumed again from the end: nothing is sent twice; the next payment comes alone.
    const end = lastId(resumed);
    resumed.close();
    const again = await opened(shop, t!.merchant.id, { 'last-event-id': end });
    const p4 = await paid(t!.deps, t!.merchant.id, 15_000);
    await heard(again, 1);
    // The page's own reconnects carry the position as `after` instead of the header.
    const viaQuery = await opened(shop, `${t!.merchant.id}&after=${encodeURIComponent(end)}`);
    await heard(viaQuery, 1);
    expect(payments(again).map((e) => e.data.payment.trxid)).toEqual([p4.id]);
    expect(payments(viaQuery).map((e) => e.data.payment.trxid)).toEqual([p4.id]);

    // A position this gateway never sent is refused, not guessed at.
    const bad = await open(shop, t!.merchant.id, { 'last-event-id': 'not-a-position' });
    await bad.waitForEnd();
    expect(bad.status).toBe(400);
  });

  it('caps the streams of one user, and frees a slot when a page leaves', async () => {
    await setup();
    const shop = await cookieOf('shop@example.test');
    const held: EventStream[] = [];
    for (let i = 0; i < SOUNDBOX_STREAMS_PER_USER; i++) held.push(await opened(shop, t!.merchant.id));
    const refused = await open(shop, t!.merchant.id);
    await refused.waitForEnd();
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('30');
    // Another user of the same merchant is not held to this user's cap.
    await opened(await cookieOf('ops@example.test'), t!.merchant.id);

    held[0]!.close();
    const deadline = Date.now() + 5000;
    let status = 0;
    while (Date.now() < deadline) {
      const s = await open(shop, t!.merchant.id);
      await s.waitFor((text) => text.length > 0 || s.status !== 200, 5000).catch(() => {});
      status = s.status;
      if (status === 200) break;
      s.close();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(200);
  });
});
