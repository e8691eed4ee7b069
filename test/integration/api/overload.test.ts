// issue 25, part 4: past an OVERLOAD_* limit the gateway sheds requests with 503 `overloaded` and
// Retry-After, health checks and /metrics still answer, and it serves normally again once the pressure
// is gone. The pressure is forced, never timed: a heap held over a tiny limit, or an event loop kept busy;
// each test waits (polling) for the guard to see it and to see it end.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CQRIS } from '../../helpers/api.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { expectError } from '../../helpers/http-assertions.js';

// A garbage collection on demand, so that a released allocation leaves the heap when the test says so.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const WAIT = { timeout: 20_000, interval: 20 };

describe('load shedding', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  async function expectShedAndExempt(): Promise<void> {
    const shed = await t.app.inject({ url: `${CQRIS}?amount=10000`, headers: { 'x-api-key': t.testKey } });
    const body = expectError(shed, 503, 'overloaded', null);
    expect(body.error.message).toMatch(/overloaded/);
    expect(shed.headers['retry-after']).toBe('2');
    // Refused before auth: a request without a key is shed the same way, not told 401.
    expectError(await t.app.inject({ url: `${CQRIS}?amount=10000` }), 503, 'overloaded');
    // Pages answer with their own short page (the console's refusal, the payment links' busy page), 503 too.
    for (const url of ['/dashboard/login', '/pay/some-shop']) {
      const page = await t.app.inject({ url });
      expect(page.statusCode, url).toBe(503);
      expect(page.headers['content-type'], url).toMatch(/^text\/html/);
      expect(page.headers['retry-after'], url).toBe('2');
    }
    expect((await t.app.inject({ url: '/healthz' })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    const metrics = await t.app.inject({ url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toMatch(/^qris_requests_shed_total 4$/m);
  }

  async function expectServed(): Promise<void> {
    const res = await t.app.inject({ url: `${CQRIS}?amount=10000`, headers: { 'x-api-key': t.testKey } });
    expect(res.statusCode, res.body).toBe(200);
  }

  it('sheds while the heap is over OVERLOAD_MAX_HEAP_USED_BYTES and recovers when it is freed', async () => {
    collectGarbage();
    const limit = process.memoryUsage().heapUsed + 128 * 1024 * 1024;
    t = await createTestApp({ OVERLOAD_SAMPLE_INTERVAL_MS: '20', OVERLOAD_MAX_HEAP_USED_BYTES: String(limit) });
    // What building the app left behind is garbage, gone once collected.
    await vi.waitFor(() => {
      collectGarbage();
      expect(t.app.isUnderPressure()).toBe(false);
    }, WAIT);
    await expectServed();
    // 256 MB of doubles on the V8 heap, held until the assertions are done.
    let held: number[] | null = new Array<number>(32 * 1024 * 1024).fill(0.5);
    await vi.waitFor(() => expect(t.app.isUnderPressure()).toBe(true), WAIT);
    await expectShedAndExempt();
    expect(held.length).toBeGreaterThan(0);
    held = null;
    collectGarbage();
    await vi.waitFor(() => expect(t.app.isUnderPressure()).toBe(false), WAIT);
    await expectServed();
  });

  it('sheds while the event loop is stalled past OVERLOAD_MAX_EVENT_LOOP_DELAY_MS and recovers after', async () => {
    t = await createTestApp({ OVERLOAD_SAMPLE_INTERVAL_MS: '50', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '50' });
    // Building the app (migrations, seeding) may itself have kept the loop busy for a sample.
    await vi.waitFor(() => expect(t.app.isUnderPressure()).toBe(false), WAIT);
    await expectServed();
    // The loop is blocked 200 ms at a time, with a turn in between for the requests and the guard's sampler.
    const stall = setInterval(() => {
      const until = Date.now() + 200;
      while (Date.now() < until) {
        // busy: nothing else runs
      }
    }, 1);
    try {
      await vi.waitFor(() => expect(t.app.isUnderPressure()).toBe(true), WAIT);
      await expectShedAndExempt();
    } finally {
      clearInterval(stall);
    }
    await vi.waitFor(() => expect(t.app.isUnderPressure()).toBe(false), WAIT);
    await expectServed();
  });

  it('past OVERLOAD_MAX_IN_FLIGHT API requests in progress a new one is shed at once; pages are not counted; the count returns to 0', async () => {
    t = await createTestApp({ OVERLOAD_MAX_IN_FLIGHT: '3' });
    // Ten creates sent together, whose reads of their merchant (cold caches: a fresh app) wait at a gate
    // until seven have been answered: the first three are taken and the other seven refused once their key is checked, before any of their work. The
    // gate makes "together" hold on a loaded host too, where one create could otherwise finish before the
    // last arrives.
    const executor = t.deps.db.getExecutor();
    const original = executor.executeQuery;
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    executor.executeQuery = (async (query: Parameters<typeof original>[0]) => {
      if (/ from "merchants" /.test(query.sql)) await gate;
      return original.call(executor, query);
    }) as typeof original;
    let answered = 0;
    let burst: Awaited<ReturnType<typeof t.app.inject>>[];
    try {
      const sent = Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          t.app.inject({ url: `${CQRIS}?amount=${20_000 + i}`, headers: { 'x-api-key': t.testKey } }).then((r) => {
            answered += 1;
            return r;
          }),
        ),
      );
      await vi.waitFor(() => expect(answered).toBe(7), WAIT);
      open();
      burst = await sent;
    } finally {
      open();
      executor.executeQuery = original;
    }
    expect(burst.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 503, 503, 503, 503, 503, 503, 503]);
    for (const r of burst.filter((x) => x.statusCode === 503)) {
      expectError(r, 503, 'overloaded');
      expect(r.headers['retry-after']).toBe('2');
    }
    expect(
      await t.deps.db
        .selectFrom('transactions')
        .select('id')
        .where('amount', '>=', 20_000)
        .where('amount', '<', 20_010)
        .execute(),
    ).toHaveLength(3);
    // Pages and health checks are not API requests: a burst of them is never refused by this limit.
    const pages = await Promise.all(Array.from({ length: 10 }, () => t.app.inject({ url: '/healthz' })));
    expect(pages.every((r) => r.statusCode === 200)).toBe(true);
    // Every answered request left the count, a refused one included: bursts of three, one after another, all pass.
    for (let round = 0; round < 3; round++) {
      const ok = await Promise.all(
        Array.from({ length: 3 }, (_, i) =>
          t.app.inject({ url: `${CQRIS}?amount=${30_000 + round * 3 + i}`, headers: { 'x-api-key': t.testKey } }),
        ),
      );
      expect(ok.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    }
    // A client that goes away before its answer leaves the count too.
    const aborted = new AbortController();
    const slow = t.app
      .inject({ url: `${CQRIS}?amount=40000`, headers: { 'x-api-key': t.testKey }, signal: aborted.signal })
      .catch(() => null);
    aborted.abort();
    await slow;
    await t.deps.db.settled();
    const after = await Promise.all(
      Array.from({ length: 3 }, (_, i) =>
        t.app.inject({ url: `${CQRIS}?amount=${41_000 + i}`, headers: { 'x-api-key': t.testKey } }),
      ),
    );
    expect(after.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect((await t.app.inject({ url: '/metrics' })).body).toMatch(/^qris_requests_shed_total 7$/m);
  });

  it('with every limit 0 nothing is ever shed', async () => {
    t = await createTestApp({
      OVERLOAD_SAMPLE_INTERVAL_MS: '10',
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
      OVERLOAD_MAX_HEAP_USED_BYTES: '0',
      OVERLOAD_MAX_RSS_BYTES: '0',
      OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '0',
      OVERLOAD_MAX_IN_FLIGHT: '0',
    });
    expect(t.app.isUnderPressure()).toBe(false);
    await expectServed();
    const burst = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        t.app.inject({ url: `${CQRIS}?amount=${50_000 + i}`, headers: { 'x-api-key': t.testKey } }),
      ),
    );
    expect(burst.filter((r) => r.statusCode !== 200)).toEqual([]);
    expect((await t.app.inject({ url: '/metrics' })).body).toMatch(/^qris_requests_shed_total 0$/m);
  });
});
