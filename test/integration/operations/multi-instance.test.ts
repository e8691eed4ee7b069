// Several gateway processes on one PostgreSQL database, as behind a load balancer: uniqueness, payments
// and events must hold across them. PostgreSQL is the supported way to run more than one instance, so
// this file runs on the PostgreSQL pass of the suite.
import { TEST_ACTOR } from '../../helpers/console.js';
import { newServiceState } from '../../../src/services/state.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Database } from '../../../src/storage/database.js';
import { migrateToLatest } from '../../../src/storage/migrate.js';
import { loadConfig } from '../../../src/config.js';
import type { Deps } from '../../../src/services/deps.js';
import { codeIssuers } from '../../../src/payment-sources/issuers.js';
import { silentLogger } from '../../../src/http/logger.js';
import { sourceCatalog } from '../../../src/payment-sources/kinds.js';
import { freshDatabaseUrl, onPostgres, seedMerchant, type Seeded } from '../../helpers/context.js';
import { startGateway, type GatewayProcess } from '../../helpers/processes.js';
import { Receiver } from '../../helpers/receiver.js';
import { addWebhookEndpoint } from '../../../src/services/webhooks/add-webhook-endpoint.js';
import { setDailyQuota } from '../../../src/services/merchants/set-daily-quota.js';
import { verifyWebhookSignature } from '../../../src/index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe.runIf(onPostgres)('three gateway instances on one PostgreSQL database', () => {
  let database: Database;
  let deps: Deps;
  let drop: () => Promise<void>;
  let dir: string;
  let seeded: Seeded;
  let gateways: GatewayProcess[] = [];
  let receiver: Receiver;
  let webhookSecret: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'qg-multi-'));
    const fresh = await freshDatabaseUrl(dir);
    drop = fresh.drop;
    // Migrate once before the instances start, as docs/operations.md says to.
    database = openDatabase(fresh.url);
    await migrateToLatest(database, database.dialect);
    const config = loadConfig({ DATABASE_URL: fresh.url, WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8' });
    deps = {
      db: database,
      config,
      now: Date.now,
      logger: silentLogger(),
      issuers: codeIssuers,
      sources: sourceCatalog,
      state: newServiceState(),
    };
    seeded = await seedMerchant(deps);
    receiver = await Receiver.start();
    webhookSecret = (
      await addWebhookEndpoint(deps, {
        merchantId: seeded.merchant.id,
        url: receiver.url(),
        events: ['transaction.paid'],
      })
    ).secret;
    const env = {
      DATABASE_URL: fresh.url,
      DEMO_MERCHANT: 'false',
      RATE_LIMIT_PER_MINUTE: '0',
      UNIQUE_CODE_MAX: '250',
      DATABASE_POOL_SIZE: '5',
      WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8',
      // Each dispatcher logs the passes it completes at debug level; the webhook test counts them.
      LOG_LEVEL: 'debug',
    };
    gateways = await Promise.all([0, 1, 2].map(() => startGateway(env)));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    await receiver?.close();
    await database?.close();
    await drop?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it('300 concurrent creates of one amount across the instances: 250 distinct totals, the rest a clear 503', async () => {
    const results = await Promise.all(
      Array.from({ length: 300 }, async (_, i) => {
        const res = await fetch(`${gateways[i % 3]!.url}/api/payment-gateway/cqris?amount=50000`, {
          headers: { 'x-api-key': seeded.liveKey },
        });
        return { status: res.status, body: (await res.json()) as any, retryAfter: res.headers.get('retry-after') };
      }),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    expect(ok).toHaveLength(250);
    expect(new Set(ok.map((r) => r.body.data.total_amount)).size).toBe(250);
    expect(new Set(ok.map((r) => r.body.data.trxid)).size).toBe(250);
    for (const r of refused) {
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe('unique_code_exhausted');
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
    }
    const stored = await deps.db
      .selectFrom('transactions')
      .select(['total_amount'])
      .where('amount', '=', 50000)
      .execute();
    expect(stored).toHaveLength(250);
    expect(new Set(stored.map((s) => s.total_amount)).size).toBe(250);
  });

  it('a daily quota of 3 holds across the instances: 30 concurrent creates make exactly 3', async () => {
    const limited = await seedMerchant(deps, 1, 'Limited');
    await setDailyQuota(deps, limited.merchant.id, 3, TEST_ACTOR);
    const results = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const res = await fetch(`${gateways[i % 3]!.url}/api/payment-gateway/cqris?amount=${70_000 + i}`, {
          headers: { 'x-api-key': limited.liveKey },
        });
        return { status: res.status, body: (await res.json()) as any };
      }),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    for (const r of results.filter((x) => x.status !== 200))
      expect([r.status, r.body.error.code]).toEqual([429, 'quota_exceeded']);
    expect(
      await deps.db.selectFrom('transactions').select('id').where('merchant_id', '=', limited.merchant.id).execute(),
    ).toHaveLength(3);
  });

  it('a payment reported to one instance pays a transaction created on another, and every instance sees it', async () => {
    const created = await fetch(`${gateways[0]!.url}/api/payment-gateway/cqris?amount=61000`, {
      headers: { 'x-api-key': seeded.testKey },
    });
    const tx = ((await created.json()) as any).data;
    const paid = await fetch(`${gateways[1]!.url}/api/payment-gateway/simulate?trxid=${tx.trxid}`, {
      method: 'POST',
      headers: { 'x-api-key': seeded.testKey },
    });
    expect(paid.status).toBe(200);
    for (const g of gateways) {
      const status = await fetch(`${g.url}/api/payment-gateway/cstatus?trxid=${tx.trxid}`, {
        headers: { 'x-api-key': seeded.testKey },
      });
      expect(((await status.json()) as any).data.status).toBe('paid');
    }
  });

  it('a checkout page open on one instance hears of a payment made through another', async () => {
    const created = await fetch(`${gateways[0]!.url}/api/payment-gateway/cqris?amount=62000`, {
      headers: { 'x-api-key': seeded.testKey },
    });
    const tx = ((await created.json()) as any).data;
    const stream = await fetch(`${gateways[2]!.url}/checkout/${tx.trxid}/events`);
    const reader = stream.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const read = async (until: RegExp) => {
      while (!until.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
    };
    await read(/"status":"pending"/);
    const started = Date.now();
    await fetch(`${gateways[1]!.url}/api/payment-gateway/simulate?trxid=${tx.trxid}`, {
      method: 'POST',
      headers: { 'x-api-key': seeded.testKey },
    });
    await read(/"status":"paid"/);
    expect(text).toContain('"status":"paid"');
    // Heard through NOTIFY, not the stream's slow fallback re-read (10 s).
    expect(Date.now() - started).toBeLessThan(5000);
    await reader.cancel();
  });

  it('every instance dispatches webhooks, and each event reaches the receiver exactly once', async () => {
    const trxids: string[] = [];
    for (let i = 0; i < 24; i++) {
      const res = await fetch(`${gateways[i % 3]!.url}/api/payment-gateway/cqris?amount=${70000 + i}`, {
        headers: { 'x-api-key': seeded.testKey },
      });
      trxids.push(((await res.json()) as any).data.trxid);
    }
    await Promise.all(
      trxids.map((trxid, i) =>
        fetch(`${gateways[(i + 1) % 3]!.url}/api/payment-gateway/simulate?trxid=${trxid}`, {
          method: 'POST',
          headers: { 'x-api-key': seeded.testKey },
        }),
      ),
    );
    const ours = () => receiver.requests.filter((r) => trxids.includes(JSON.parse(r.body).data.trxid));
    const deadline = Date.now() + 30_000;
    while (ours().length < trxids.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    // Three dispatchers keep polling: each completes three more passes, begun after the last event
    // arrived, before the count, so a duplicate any of them would send has been sent.
    const passes = (g: GatewayProcess) => g.output().split('"msg":"webhook dispatch pass"').length - 1;
    const arrived = gateways.map(passes);
    await vi.waitFor(() => expect(gateways.every((g, i) => passes(g) >= arrived[i]! + 4)).toBe(true), {
      timeout: 30_000,
      interval: 50,
    });
    const received = ours();
    expect(received).toHaveLength(trxids.length);
    expect(new Set(received.map((r) => r.headers['x-event-id'])).size).toBe(trxids.length);
    expect(new Set(received.map((r) => JSON.parse(r.body).data.trxid))).toEqual(new Set(trxids));
    for (const r of received) {
      expect(r.headers['x-event-type']).toBe('transaction.paid');
      expect(
        verifyWebhookSignature({ payload: r.body, header: String(r.headers['x-signature']), secret: webhookSecret }),
      ).toBe(true);
    }
  });
});
