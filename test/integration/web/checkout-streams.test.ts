import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import { openDatabase } from '../../../src/storage/database.js';
import { StatusStream } from '../../../src/web/status-stream.js';
import { createInput, createTestApp, type TestApp } from '../../helpers/context.js';
import { countStatements } from '../../helpers/count-statements.js';
import { openEventStream, statusEvents, type EventStream } from '../../helpers/event-stream.js';

describe('checkout status streams', () => {
  let t: TestApp | null = null;
  let base = '';
  const streams: EventStream[] = [];
  afterEach(async () => {
    for (const s of streams.splice(0)) s.close();
    await t?.close();
    t = null;
    vi.useRealTimers();
  });

  async function setup(env: Record<string, string> = {}): Promise<TestApp> {
    t = await createTestApp(env);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    return t;
  }
  async function pending(amount: number): Promise<string> {
    return (await createTransaction(t!.deps, createInput(t!.merchant.id, amount))).transaction.id;
  }
  async function open(trxid: string, from?: string): Promise<EventStream> {
    const s = await openEventStream(`${base}/checkout/${trxid}/events`, from ? { 'x-forwarded-for': from } : {});
    streams.push(s);
    return s;
  }
  /** Opens a stream and waits for its first status event (so it holds its slot). */
  async function opened(trxid: string, from?: string): Promise<EventStream> {
    const s = await open(trxid, from);
    expect(s.status, s.text).toBe(200);
    await s.waitFor((text) => statusEvents(text).length > 0);
    return s;
  }
  /** A refused stream: the status, Retry-After and the JSON error's code. */
  async function refusal(
    trxid: string,
    from?: string,
  ): Promise<{ status: number; retryAfter: string | undefined; code: string }> {
    const s = await open(trxid, from);
    await s.waitForEnd();
    expect(s.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(s.text) as { success: boolean; error: { code: string; request_id: string } };
    expect(body.success).toBe(false);
    expect(body.error.request_id).toBeTruthy();
    return { status: s.status, retryAfter: s.headers['retry-after'], code: body.error.code };
  }
  const _hasEvents = (s: EventStream, n: number) => s.waitFor((text) => statusEvents(text).length >= n);

  it('sends the status at once and each change, ends after a final status, and frees its slot', async () => {
    await setup({ CHECKOUT_STREAMS_PER_TRANSACTION: '1' });
    const trxid = await pending(11_000);
    const s = await opened(trxid);
    expect(s.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(s.headers['cache-control']).toBe('no-store');
    expect(statusEvents(s.text)).toEqual([{ status: 'pending', paid_late: false }]);

    await simulatePayment(t!.deps, { merchantId: t!.merchant.id, mode: 'test' }, trxid);
    await s.waitForEnd();
    expect(statusEvents(s.text)).toEqual([
      { status: 'pending', paid_late: false },
      { status: 'paid', paid_late: false },
    ]);

    // The only slot of this transaction was given back: a page opened now gets `paid` and the end.
    const again = await opened(trxid);
    await again.waitForEnd();
    expect(statusEvents(again.text)).toEqual([{ status: 'paid', paid_late: false }]);
  });

  it('ends the stream at expiry with `expired`', async () => {
    await setup({ STATUS_WATCH_INTERVAL_MS: '50' });
    const s = await opened(await pending(12_000));
    t!.clock.advance(16 * 60 * 1000);
    await s.waitForEnd();
    expect(statusEvents(s.text).map((e) => e.status)).toEqual(['pending', 'expired']);
  });

  it('sends a heartbeat comment every CHECKOUT_HEARTBEAT_SECONDS', async () => {
    // The app's interval timers are the test's to move (its status watch's too): beats are counted per
    // period of the app's own heartbeat timer, not timed against the machine's clock.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    await setup({ CHECKOUT_HEARTBEAT_SECONDS: '2' });
    const trxid = await pending(13_000);
    const s = await opened(trxid);
    const beats = vi.spyOn(StatusStream.prototype, 'heartbeat');
    onTestFinished(() => beats.mockRestore());
    for (let i = 1; i <= 3; i++) {
      vi.advanceTimersByTime(1999);
      expect(beats).toHaveBeenCalledTimes(i - 1);
      vi.advanceTimersByTime(1);
      expect(beats).toHaveBeenCalledTimes(i);
    }
    expect(s.ended).toBe(false);
    // A payment ends the stream, so everything written before it has arrived: the status, the three
    // comments (heard by the page as nothing), and the final status.
    await simulatePayment(t!.deps, { merchantId: t!.merchant.id, mode: 'test' }, trxid);
    await s.waitForEnd();
    expect(s.text).toMatch(
      /^event: status\ndata: \{"status":"pending"[^\n]*\n\n(: heartbeat\n\n){3}event: status\ndata: \{"status":"paid"[^\n]*\n\n$/,
    );
    expect(statusEvents(s.text)).toEqual([
      { status: 'pending', paid_late: false },
      { status: 'paid', paid_late: false },
    ]);
  });

  it('refuses a client over the per-address cap with 429, Retry-After and too_many_streams, while the API keeps answering', async () => {
    await setup({
      TRUST_PROXY: 'true',
      CHECKOUT_STREAMS_PER_ADDRESS: '3',
      CHECKOUT_STREAMS_PER_TRANSACTION: '100',
      CHECKOUT_STREAMS_TOTAL: '100',
    });
    const trxid = await pending(14_000);
    const first = await opened(trxid, '203.0.113.7');
    await opened(trxid, '203.0.113.7');
    await opened(trxid, '203.0.113.7');
    expect(await refusal(trxid, '203.0.113.7')).toEqual({ status: 429, retryAfter: '30', code: 'too_many_streams' });
    // The same address written as IPv6 counts as the same client.
    expect((await refusal(trxid, '::ffff:203.0.113.7')).code).toBe('too_many_streams');

    const api = await fetch(`${base}/api/payment-gateway/cstatus?trxid=${trxid}`, {
      headers: { 'x-api-key': t!.testKey },
    });
    expect(api.status).toBe(200);
    const polled = await fetch(`${base}/checkout/${trxid}/status`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(await polled.json()).toEqual({ success: true, data: { status: 'pending', paid_late: false } });

    // Other clients are not affected; IPv6 counts per /64.
    await opened(trxid, '198.51.100.9');
    for (const host of ['1', '2', 'ffff']) await opened(trxid, `2001:db8:1:2::${host}`);
    expect((await refusal(trxid, '2001:db8:1:2:aaaa::1')).code).toBe('too_many_streams');
    await opened(trxid, '2001:db8:1:3::1');

    // A page that leaves gives its slot back.
    first.close();
    const deadline = Date.now() + 5000;
    let retried = await open(trxid, '203.0.113.7');
    while (retried.status === 429 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      retried = await open(trxid, '203.0.113.7');
    }
    expect(retried.status).toBe(200);
  });

  it('caps streams per transaction (429) and in total (503 streams_at_capacity)', async () => {
    await setup({
      TRUST_PROXY: 'true',
      CHECKOUT_STREAMS_PER_ADDRESS: '100',
      CHECKOUT_STREAMS_PER_TRANSACTION: '2',
      CHECKOUT_STREAMS_TOTAL: '3',
    });
    const one = await pending(15_000);
    const two = await pending(15_001);
    await opened(one, '192.0.2.1');
    await opened(one, '192.0.2.2');
    expect(await refusal(one, '192.0.2.3')).toEqual({ status: 429, retryAfter: '30', code: 'too_many_streams' });
    await opened(two, '192.0.2.3');
    expect(await refusal(two, '192.0.2.4')).toEqual({ status: 503, retryAfter: '30', code: 'streams_at_capacity' });
    const api = await fetch(`${base}/api/payment-gateway/cstatus?trxid=${two}`, {
      headers: { 'x-api-key': t!.testKey },
    });
    expect(api.status).toBe(200);
  });

  // issue 23, found by the route-table fuzz: a HEAD of the stream never answered (Node sends no headers
  // for HEAD until the end) and held its slot while the client waited.
  it('answers HEAD with the headers at once and holds no slot for it', async () => {
    await setup({ CHECKOUT_STREAMS_PER_TRANSACTION: '1' });
    const trxid = await pending(12_500);
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${base}/checkout/${trxid}/events`, {
        method: 'HEAD',
        signal: AbortSignal.timeout(5000),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    }
    await opened(trxid);
  });

  it('answers unknown and malformed ids with JSON errors, holding no slot for them', async () => {
    await setup({ CHECKOUT_STREAMS_PER_ADDRESS: '1' });
    const unknown = 'trx_0000000000000000000000000000000';
    for (let i = 0; i < 3; i++)
      expect(await refusal(unknown)).toEqual({ status: 404, retryAfter: undefined, code: 'transaction_not_found' });
    expect((await refusal('trx_not-an-id')).code).toBe('invalid_parameter');
    await opened(await pending(16_000));
  });

  it('answers the polling fallback with the status alone', async () => {
    await setup();
    const trxid = await pending(17_000);
    const poll = async (id: string) => {
      const res = await fetch(`${base}/checkout/${id}/status`);
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    expect(await poll(trxid)).toEqual({
      status: 200,
      body: { success: true, data: { status: 'pending', paid_late: false } },
    });
    await simulatePayment(t!.deps, { merchantId: t!.merchant.id, mode: 'test' }, trxid);
    expect((await poll(trxid)).body.data).toEqual({ status: 'paid', paid_late: false });
    const expiring = await pending(17_001);
    t!.clock.advance(16 * 60 * 1000);
    expect((await poll(expiring)).body.data).toEqual({ status: 'expired', paid_late: false });
    const missing = await poll('trx_0000000000000000000000000000000');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'transaction_not_found']);
    expect((await poll('trx_bad-id')).body.error.code).toBe('invalid_parameter');
  });

  it('reads nothing while nothing changes, and one statement for all watched pages when another connection commits', async () => {
    await setup({ STATUS_WATCH_INTERVAL_MS: '50' });
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push(await pending(18_000 + i));
    const pages = await Promise.all(ids.map((id) => opened(id)));
    // Another connection pays, as another process would. On SQLite its announcement could not reach
    // this process, so none is made: only data_version shows the commit. On PostgreSQL NOTIFY carries it.
    const payElsewhere = async (trxid: string) => {
      const other = openDatabase(t!.databaseUrl);
      try {
        await other.runInTransaction(async (trx) => {
          await trx
            .updateTable('transactions')
            .set({ status: 'paid', paid_at: t!.clock.now() })
            .where('id', '=', trxid)
            .execute();
          if (other.dialect === 'postgres') await t!.deps.state.statusBus.announce(trx, trxid);
        });
      } finally {
        await other.close();
      }
    };
    // The page ends only if the watch heard of the commit: nothing else moves it (its expiry is 15 minutes
    // of the test's clock, which stands still).
    const seen = async (i: number) => {
      await pages[i]!.waitForEnd();
      expect(statusEvents(pages[i]!.text).map((e) => e.status)).toEqual(['pending', 'paid']);
    };
    // The first payment also shows that the PostgreSQL listener is in place (its connection is made in
    // the background): nothing else reads from here on.
    await payElsewhere(ids[3]!);
    await seen(3);

    const statements = countStatements(t!.deps.db);
    // Ten more rounds of the watch with nine pages open, each run to its end: none of them read.
    const watch = t!.app.statusWatch;
    const from = watch.rounds;
    await vi.waitFor(() => expect(watch.rounds).toBeGreaterThanOrEqual(from + 10), { timeout: 20_000, interval: 20 });
    expect(statements.count).toBe(0);

    await payElsewhere(ids[6]!);
    await seen(6);
    // One read: the nine watched ids in one IN-list on SQLite, the one announced id on PostgreSQL.
    expect(statements.count).toBe(1);
    expect([...statements.texts][0]).toMatch(/from "transactions" where "id" in/);
    for (const [i, page] of pages.entries()) {
      if (i === 3 || i === 6) continue;
      expect(page.ended).toBe(false);
      expect(statusEvents(page.text)).toHaveLength(1);
    }
  });

  it('ends open streams when the server closes', async () => {
    await setup();
    const s = await opened(await pending(19_000));
    await t!.app.close();
    await s.waitForEnd(1000);
  });
});
