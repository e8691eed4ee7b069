import { afterEach, describe, expect, it } from 'vitest';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { createInput, createTestApp, onPostgres, type TestApp } from '../../helpers/context.js';

describe('/metrics', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('counts requests by route pattern, not by raw URL', async () => {
    t = await createTestApp();
    await t.app.inject({ url: '/api/payment-gateway/cqris?amount=10000', headers: { 'x-api-key': t.testKey } });
    await t.app.inject({ url: '/api/payment-gateway/qr/trx_unknown123.png' });
    const res = await t.app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toMatch(
      /qris_http_requests_total\{route="\/api\/payment-gateway\/cqris",method="GET",status="200"\} 1/,
    );
    expect(res.body).toContain('route="/api/payment-gateway/qr/:file"');
    expect(res.body).not.toContain('trx_unknown123');
    expect(res.body).not.toContain(t.testKey);
  });

  it('keeps one series per route, method and status, and times every request of a route', async () => {
    t = await createTestApp();
    const headers = { 'x-api-key': t.testKey };
    for (let i = 0; i < 3; i++)
      await t.app.inject({ url: `/api/payment-gateway/cqris?amount=${10_000 + i * 5000}`, headers });
    await t.app.inject({ url: '/api/payment-gateway/cqris?amount=10000', headers: { 'x-api-key': 'sk_test_wrong' } });
    await t.app.inject({ method: 'POST', url: '/api/payment-gateway/cqris', headers, payload: { amount: 20_000 } });
    const body = (await t.app.inject({ url: '/metrics' })).body;
    const route = 'route="/api/payment-gateway/cqris"';
    expect(body).toContain(`qris_http_requests_total{${route},method="GET",status="200"} 3`);
    expect(body).toContain(`qris_http_requests_total{${route},method="GET",status="401"} 1`);
    expect(body).toContain(`qris_http_requests_total{${route},method="POST",status="201"} 1`);
    expect(body).toContain(`qris_http_request_duration_seconds_count{${route}} 5`);
  });

  it('reports group commits and the units they carried', async () => {
    t = await createTestApp();
    const headers = { 'x-api-key': t.testKey };
    await Promise.all(
      [0, 1, 2, 3].map((i) => t.app.inject({ url: `/api/payment-gateway/cqris?amount=${30_000 + i * 1000}`, headers })),
    );
    const body = (await t.app.inject({ url: '/metrics' })).body;
    const commits = Number(/^qris_group_commits_total (\d+)$/m.exec(body)?.[1]);
    const units = Number(/^qris_group_commit_units_total (\d+)$/m.exec(body)?.[1]);
    if (onPostgres) {
      // PostgreSQL runs each unit in a transaction of its own: nothing is grouped.
      expect([commits, units]).toEqual([0, 0]);
    } else {
      expect(commits).toBeGreaterThanOrEqual(1);
      expect(units).toBeGreaterThanOrEqual(commits);
    }
  });

  it("reports batched creates from the services' own counters", async () => {
    t = await createTestApp();
    // Plain creates of one turn are made together, on either database (create-batch.ts). The first
    // create warms the merchant's caches so that the rest reach the queue in one turn.
    await createTransaction(t.deps, createInput(t.merchant.id, 39_000));
    await Promise.all(
      [0, 1, 2, 3, 4].map((i) => createTransaction(t.deps, createInput(t.merchant.id, 40_000 + i * 1000))),
    );
    const body = (await t.app.inject({ url: '/metrics' })).body;
    const stats = t.deps.state.creates.stats;
    expect(stats.made).toBeGreaterThanOrEqual(2);
    expect(body).toMatch(new RegExp(`^qris_create_batches_total\\{outcome="committed"\\} ${stats.batches}$`, 'm'));
    expect(body).toMatch(/^qris_create_batches_total\{outcome="failed"\} 0$/m);
    expect(body).toMatch(new RegExp(`^qris_batched_creates_total\\{outcome="made"\\} ${stats.made}$`, 'm'));
    expect(body).toMatch(/^qris_batched_creates_total\{outcome="refused"\} 0$/m);
  });

  it('requires the token when METRICS_TOKEN is set', async () => {
    t = await createTestApp({ METRICS_TOKEN: 'scrape-secret' });
    expect((await t.app.inject({ url: '/metrics' })).statusCode).toBe(401);
    expect(
      (await t.app.inject({ url: '/metrics', headers: { authorization: 'Bearer wrong-secret!' } })).statusCode,
    ).toBe(401);
    expect(
      (await t.app.inject({ url: '/metrics', headers: { authorization: 'Bearer scrape-secret' } })).statusCode,
    ).toBe(200);
  });
});
