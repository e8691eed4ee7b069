import { TEST_ACTOR } from '../../helpers/console.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setSourceEnabled } from '../../../src/services/sources/set-source-enabled.js';
import { setMerchantEnabled } from '../../../src/services/merchants/set-merchant-enabled.js';
import { expireDue } from '../../../src/services/transactions/expire-due.js';
import { pollDueFeeds } from '../../../src/payment-sources/feed/poll.js';
import { addFeedSource } from '../../../src/payment-sources/feed/setup.js';
import { startFeedPoller } from '../../../src/payment-sources/feed/poller.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { createLogger } from '../../../src/http/logger.js';
import { cli, createLive, listen, status, wib } from '../../helpers/payment-sources.js';

/** A fake mutation feed on loopback: each test sets what it answers. */
interface FakeAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Never answer (to trip the poller's timeout). */
  hang?: boolean;
}

let t: TestApp;
let base: string;
let feedServer: Server;
let feedUrl: string;
let answer: FakeAnswer = {};
let hits = 0;
let amount = 60_000;

beforeAll(async () => {
  // The fake feed is on loopback, which the poller refuses unless the operator allows it.
  t = await createTestApp({
    FEED_TIMEOUT_MS: '500',
    FEED_MAX_BACKOFF_SECONDS: '300',
    WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8',
  });
  base = await listen(t);
  feedServer = createServer((_req, res) => {
    hits += 1;
    if (answer.hang) return;
    const body = answer.body === undefined ? { status: 'success', message: 'no data' } : answer.body;
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve));
  feedUrl = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}/api/mutasi/qris?token=secret-token`;
});
afterAll(async () => {
  feedServer.closeAllConnections();
  await new Promise((resolve) => feedServer.close(resolve));
  await t.close();
});

// Each test works with its own feed; the others are switched off so a poll touches only it.
let current: string | null = null;
async function newFeed(intervalSeconds = 10): Promise<string> {
  if (current) await setSourceEnabled(t.deps, { id: current, enabled: false, actor: TEST_ACTOR });
  const created = await addFeedSource(t.deps, { merchantId: t.merchant.id, url: feedUrl, intervalSeconds });
  current = created.id;
  return created.id;
}
afterEach(() => {
  answer = {};
});

function entry(total: number | string, over: Record<string, unknown> = {}) {
  return {
    date: wib(t.clock.now()),
    amount: String(total),
    type: 'CR',
    qris: 'static',
    brand_name: 'DANA',
    issuer_reff: `REF${++amount}`,
    buyer_reff: 'BUDI SANTOSO',
    balance: '1.250.000',
    ...over,
  };
}

const feed = (...entries: unknown[]) => ({ status: 'success', data: entries });

async function poll() {
  const summaries = await pollDueFeeds(t.deps);
  return summaries.find((s) => s.sourceId === current) ?? null;
}

async function sourceRow(id: string) {
  return t.deps.db.selectFrom('payment_sources').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describe('mutation feed source', () => {
  // issue 23, finding 9: a disabled merchant's feed keeps its reports, but they pay nothing.
  it("stores a disabled merchant's payments from its feed as unmatched (merchant_disabled); its transaction stays open", async () => {
    const operator = {
      userId: 'usr_test',
      email: 'ops@example.test',
      role: 'operator' as const,
      merchantIds: [],
      sessionKey: '',
      actor: { kind: 'user' as const, email: 'ops@example.test' },
    };
    const id = await newFeed();
    const tx = await createLive(base, t.liveKey, ++amount);
    await setMerchantEnabled(t.deps, operator, { id: t.merchant.id, enabled: false });
    try {
      answer = { body: feed(entry(tx.total_amount, { issuer_reff: 'DANA-OFF-1' })) };
      expect(await poll()).toMatchObject({ ok: true, recorded: 1, matched: 0, unmatched: 1 });
      const stored = await t.deps.db.selectFrom('payments').selectAll().where('source', '=', id).execute();
      expect(stored.map((p) => [p.status, p.reason, p.transaction_id])).toEqual([
        ['unmatched', 'merchant_disabled', null],
      ]);
      const row = await t.deps.db
        .selectFrom('transactions')
        .select('status')
        .where('id', '=', tx.trxid)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe('pending');
    } finally {
      await setMerchantEnabled(t.deps, operator, { id: t.merchant.id, enabled: true });
    }
  });

  it('source add --type feed --json; source list never shows the token', async () => {
    const added = await cli(
      t,
      ['source', 'add', '--merchant', t.merchant.id, '--type', 'feed', '--url', feedUrl, '--interval', '30', '--json'],
      {
        WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8',
      },
    );
    expect(added.code, added.stdout).toBe(0);
    expect(added.json).toMatchObject({
      id: expect.stringMatching(/^src_/),
      type: 'feed',
      url: feedUrl,
      interval_seconds: 30,
      mode: 'live',
    });
    const listed = await cli(t, ['source', 'list', '--merchant', t.merchant.id, '--json']);
    expect(listed.stdout).not.toContain('secret-token');
    expect(listed.json!.items.find((s: any) => s.id === added.json!.id)).toMatchObject({
      type: 'feed',
      enabled: true,
      interval_seconds: 30,
      url: expect.stringContaining('token=***'),
    });
    await setSourceEnabled(t.deps, { id: added.json!.id, enabled: false, actor: TEST_ACTOR });

    const bad = await cli(t, [
      'source',
      'add',
      '--merchant',
      t.merchant.id,
      '--type',
      'feed',
      '--url',
      'ftp://x',
      '--interval',
      '30',
      '--json',
    ]);
    expect(bad.json!.error).toMatchObject({ code: 'invalid_parameter', param: 'url' });
    const noInterval = await cli(
      t,
      ['source', 'add', '--merchant', t.merchant.id, '--type', 'feed', '--url', feedUrl, '--json'],
      {
        WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8',
      },
    );
    expect(noInterval.json!.error).toMatchObject({ code: 'invalid_parameter', param: 'interval' });
  });

  it('a pending transaction becomes paid when its total appears in the feed', async () => {
    const id = await newFeed();
    const tx = await createLive(base, t.liveKey, ++amount);
    t.clock.advance(3_000);
    // Thousands separators and WIB time without seconds, as such feeds write them.
    const dotted = String(tx.total_amount).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
    expect(dotted).toContain('.');
    answer = {
      body: feed(
        entry(dotted, { date: wib(t.clock.now(), false), issuer_reff: 'DANA-REF-1' }),
        entry(5, { type: 'DR' }),
      ),
    };
    const summary = await poll();
    expect(summary).toMatchObject({ ok: true, recorded: 1, matched: 1, unmatched: 0 });
    expect(await status(base, t.liveKey, tx.trxid)).toMatchObject({
      status: 'paid',
      paid_late: false,
      payment: {
        source: id,
        reference: 'DANA-REF-1',
        issuer: 'DANA',
        payer_name: 'BUDI SANTOSO',
        amount: tx.total_amount,
      },
    });
    const row = await sourceRow(id);
    expect(row.next_poll_at).toBe(t.clock.now() + 10_000);
    expect(JSON.parse(row.state!)).toMatchObject({ seen: ['DANA-REF-1'], failures: 0, lastError: null });

    // The next poll sees the same entry again: nothing new is recorded.
    t.clock.advance(10_000);
    expect(await poll()).toMatchObject({ ok: true, recorded: 0 });
    expect(await t.deps.db.selectFrom('payments').select('id').where('source', '=', id).execute()).toHaveLength(1);
  });

  it('two open transactions of the same base amount are each credited with their own payment', async () => {
    await newFeed();
    const a = await createLive(base, t.liveKey, 75_000);
    const b = await createLive(base, t.liveKey, 75_000);
    t.clock.advance(1_000);
    answer = { body: feed(entry(b.total_amount, { issuer_reff: '' }), entry(a.total_amount, { issuer_reff: '' })) };
    expect(await poll()).toMatchObject({ ok: true, matched: 2 });
    const [sa, sb] = [await status(base, t.liveKey, a.trxid), await status(base, t.liveKey, b.trxid)];
    expect([sa.status, sb.status]).toEqual(['paid', 'paid']);
    expect(sa.payment.amount).toBe(a.total_amount);
    expect(sb.payment.amount).toBe(b.total_amount);
    expect(sa.payment.id).not.toBe(sb.payment.id);
    // Without issuer_reff the id is a hash of the entry; the reference stays empty.
    expect(sa.payment.reference).toBeNull();
  });

  it('an entry after expiry pays the transaction with paid_late', async () => {
    await newFeed();
    const tx = await createLive(base, t.liveKey, ++amount, { expires_in: '60' });
    t.clock.advance(90_000);
    await expireDue(t.deps);
    expect((await status(base, t.liveKey, tx.trxid)).status).toBe('expired');
    answer = { body: feed(entry(tx.total_amount)) };
    expect(await poll()).toMatchObject({ ok: true, matched: 1 });
    expect(await status(base, t.liveKey, tx.trxid)).toMatchObject({ status: 'paid', paid_late: true });
  });

  it('an unexpected amount is listed as unmatched', async () => {
    const id = await newFeed();
    answer = { body: feed(entry('9.999.999', { issuer_reff: 'ODD-1' })) };
    expect(await poll()).toMatchObject({ ok: true, unmatched: 1 });
    const listed = await cli(t, ['payments', 'list', '--status', 'unmatched', '--json']);
    expect(listed.json!.items.find((p: any) => p.source === id)).toMatchObject({
      amount: 9_999_999,
      reason: 'no_matching_transaction',
      reference: 'ODD-1',
      trxid: null,
    });
  });

  it('backs off on 429, honouring Retry-After, and recovers', async () => {
    const id = await newFeed(10);
    answer = {
      status: 429,
      headers: { 'retry-after': '120' },
      body: { status: 'failed', message: 'too many requests' },
    };
    expect(await poll()).toMatchObject({ ok: false, error: 'the feed answered HTTP 429' });
    let row = await sourceRow(id);
    expect(row.next_poll_at).toBe(t.clock.now() + 120_000);
    expect(JSON.parse(row.state!)).toMatchObject({ failures: 1, lastError: 'the feed answered HTTP 429' });

    const before = hits;
    t.clock.advance(60_000);
    expect(await poll()).toBeNull();
    expect(hits).toBe(before);

    t.clock.advance(60_000);
    answer = {};
    expect(await poll()).toMatchObject({ ok: true });
    row = await sourceRow(id);
    expect(row.next_poll_at).toBe(t.clock.now() + 10_000);
    expect(JSON.parse(row.state!)).toMatchObject({ failures: 0, lastError: null });
  });

  it('errors back off exponentially up to FEED_MAX_BACKOFF_SECONDS', async () => {
    const id = await newFeed(10);
    answer = { status: 500, body: 'oops' };
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      expect(await poll()).toMatchObject({ ok: false, error: 'the feed answered HTTP 500' });
      const next = (await sourceRow(id)).next_poll_at!;
      waits.push((next - t.clock.now()) / 1000);
      t.clock.advance(next - t.clock.now());
    }
    expect(waits).toEqual([20, 40, 80, 160, 300, 300]);
  });

  it('malformed feed bodies never crash the poller, and good entries beside junk are still recorded', async () => {
    await newFeed(10);
    for (const body of [
      '<html>502 Bad Gateway</html>',
      '',
      '{"status":"success","data":',
      'null',
      '[]',
      { status: 'failed', message: 'invalid token' },
      { status: 'success', data: 'none' },
    ]) {
      answer = { body };
      const summary = await poll();
      expect(summary?.ok, JSON.stringify(body)).toBe(false);
      t.clock.advance(3_600_000);
    }
    const tx = await createLive(base, t.liveKey, ++amount);
    answer = {
      body: feed(
        null,
        'x',
        42,
        entry('abc'),
        entry(tx.total_amount, { date: '31/02/2025 10:00' }),
        entry(tx.total_amount),
        { type: 'CR' },
      ),
    };
    expect(await poll()).toMatchObject({ ok: true, matched: 1, skipped: 6 });
    expect((await status(base, t.liveKey, tx.trxid)).status).toBe('paid');
  });

  it('a feed that does not answer in time is an error, not a hang', async () => {
    const id = await newFeed(10);
    answer = { hang: true };
    // The feed hangs for good: the poll ends only because its timeout cuts it, and says so.
    expect(await poll()).toMatchObject({ ok: false, error: 'the feed did not answer in time' });
    expect(JSON.parse((await sourceRow(id)).state!)).toMatchObject({ failures: 1 });
  });

  it('two pollers at once fetch a feed once (the claim is a conditional update)', async () => {
    await newFeed(10);
    answer = {};
    const before = hits;
    const results = await Promise.all([pollDueFeeds(t.deps), pollDueFeeds(t.deps), pollDueFeeds(t.deps)]);
    expect(results.flat().filter((s) => s.sourceId === current)).toHaveLength(1);
    expect(hits - before).toBe(1);
  });

  it('a disabled feed is not polled', async () => {
    const id = await newFeed(10);
    await setSourceEnabled(t.deps, { id, enabled: false, actor: TEST_ACTOR });
    const before = hits;
    expect(await pollDueFeeds(t.deps)).toEqual([]);
    expect(hits).toBe(before);
    current = null;
  });

  // issue 23, finding 11: the poller used plain fetch, which follows redirects (every 5 s, to anywhere).
  it('a feed answering a redirect is a failed poll, logged; the redirect is not followed', async () => {
    let elsewhere = 0;
    const other = createServer((_req, res) => {
      elsewhere += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(feed()));
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const id = await newFeed(10);
      answer = {
        status: 302,
        headers: { location: `http://127.0.0.1:${(other.address() as AddressInfo).port}/internal` },
      };
      const before = hits;
      const lines: string[] = [];
      const logger = createLogger({ level: 'info', destination: { write: (line) => lines.push(line) } });
      const summaries = await pollDueFeeds({ ...t.deps, logger });
      expect(summaries.find((x) => x.sourceId === id)).toMatchObject({
        ok: false,
        error: 'the feed answered HTTP 302 (a redirect, not followed)',
      });
      expect(hits - before).toBe(1);
      expect(elsewhere).toBe(0);
      expect(JSON.parse((await sourceRow(id)).state!)).toMatchObject({
        failures: 1,
        lastError: 'the feed answered HTTP 302 (a redirect, not followed)',
      });
      expect(lines.map((l) => JSON.parse(l) as { msg: string; error?: string })).toContainEqual(
        expect.objectContaining({
          msg: 'feed poll failed',
          error: 'the feed answered HTTP 302 (a redirect, not followed)',
        }),
      );
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('the background worker polls due feeds by itself', async () => {
    await newFeed(10);
    const tx = await createLive(base, t.liveKey, ++amount);
    answer = { body: feed(entry(tx.total_amount)) };
    const worker = startFeedPoller(t.deps, 20);
    try {
      // Bounded by the test's own timeout, not a deadline of its own: a slow machine only waits longer.
      while ((await status(base, t.liveKey, tx.trxid)).status !== 'paid') await new Promise((r) => setTimeout(r, 25));
    } finally {
      await worker.stop();
    }
    expect((await status(base, t.liveKey, tx.trxid)).status).toBe('paid');
  });
});

// issue 23, finding 11: the poller fetched any address, the gateway's own host and networks included.
describe('mutation feed source without WEBHOOK_ALLOW_NETWORKS', () => {
  it('refuses a feed URL on loopback when it is added, and at every poll of one stored before', async () => {
    const guarded = await createTestApp({ FEED_TIMEOUT_MS: '500' });
    try {
      // Added: refused at once, as a webhook URL is.
      for (const url of [
        feedUrl,
        feedUrl.replace('127.0.0.1', 'localhost'),
        'http://[::1]/feed',
        'http://10.1.2.3/feed',
        'http://169.254.169.254/latest',
      ]) {
        const refusal = await addFeedSource(guarded.deps, {
          merchantId: guarded.merchant.id,
          url,
          intervalSeconds: 10,
        }).then(
          () => null,
          (err: { code: string; message: string }) => err,
        );
        expect(refusal, url).toMatchObject({
          code: 'invalid_parameter',
          message: expect.stringMatching(/^url points at .* which is .*; set WEBHOOK_ALLOW_NETWORKS to allow it$/),
        });
      }
      const cliRefusal = await cli(guarded, [
        'source',
        'add',
        '--merchant',
        guarded.merchant.id,
        '--type',
        'feed',
        '--url',
        feedUrl,
        '--interval',
        '30',
        '--json',
      ]);
      expect(cliRefusal.json!.error).toMatchObject({ code: 'invalid_parameter', param: 'url' });

      // Stored while the setting allowed it (or a name that resolves to loopback): the poller refuses
      // it before connecting, as the webhook dispatcher does.
      const allowing = {
        ...guarded.deps,
        config: { ...guarded.deps.config, webhookAllowNetworks: t.deps.config.webhookAllowNetworks },
      };
      const source = await addFeedSource(allowing, {
        merchantId: guarded.merchant.id,
        url: feedUrl,
        intervalSeconds: 10,
      });
      const before = hits;
      const [summary] = await pollDueFeeds(guarded.deps);
      expect(summary).toMatchObject({
        sourceId: source.id,
        ok: false,
        error: expect.stringMatching(/^destination refused: 127\.0\.0\.1 is loopback.*WEBHOOK_ALLOW_NETWORKS/),
      });
      expect(hits).toBe(before);
      // By name: the check is on the address connected to.
      await setSourceEnabled(guarded.deps, { id: source.id, enabled: false, actor: TEST_ACTOR });
      const named = await addFeedSource(allowing, {
        merchantId: guarded.merchant.id,
        url: feedUrl.replace('127.0.0.1', 'localhost'),
        intervalSeconds: 10,
      });
      const [byName] = await pollDueFeeds(guarded.deps);
      expect(byName).toMatchObject({
        sourceId: named.id,
        ok: false,
        error: expect.stringMatching(/^destination refused: localhost \((127\.0\.0\.1|::1)\) is loopback/),
      });
      expect(hits).toBe(before);
    } finally {
      await guarded.close();
    }
  });
});
