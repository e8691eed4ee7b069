import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { RedisRateLimiter } from '../../../src/http/redis-rate-limit.js';
import { buildApp } from '../../../src/app.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';

// The machine's Redis (CI starts it); TEST_REDIS_URL overrides.
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const silent = pino({ level: 'silent' });

describe('rate limits shared through Redis', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  it('holds one limit per key across two gateway instances', async () => {
    const prefix = `qg:test:${randomBytes(6).toString('hex')}:`;
    const t: TestApp = await createTestApp();
    closers.push(() => t.close());
    // Two instances on one database, each with its own Redis connection, as two processes would have.
    const limiters = [0, 1].map(() => new RedisRateLimiter(REDIS_URL, 5, silent, 60_000, prefix));
    const apps = await Promise.all(limiters.map((rateLimiter) => buildApp({ deps: t.deps, rateLimiter })));
    for (const [i, app] of apps.entries())
      closers.push(async () => {
        await app.close();
        await limiters[i]!.close();
      });

    // Each connection made and the limiter's script loaded before the count starts: on a loaded machine a
    // first command can pass the limiter's 500 ms command timeout, and that instance then counts in its
    // own memory (correctly, but not what this test is about). A throwaway key warms each one.
    for (const limiter of limiters) {
      for (let i = 0; i < 20; i++) {
        await limiter.hit(`warm-${i}`);
        if (!limiter.holdingLocally) break;
      }
      expect(limiter.holdingLocally).toBe(false);
    }
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await apps[i % 2]!.inject({
        url: '/api/payment-gateway/cstatus',
        headers: { 'x-api-key': t.testKey },
      });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) {
        expect(res.json().error.code).toBe('rate_limited');
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      } else {
        expect(res.headers['ratelimit-limit']).toBe('5');
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    // Another key of the same merchant has its own window.
    const other = await apps[1]!.inject({ url: '/api/payment-gateway/cstatus', headers: { 'x-api-key': t.liveKey } });
    expect(other.statusCode).toBe(200);
    expect(other.headers['ratelimit-remaining']).toBe('4');
  });

  it('holds the limit in this process when Redis is unreachable, without waiting for it', async () => {
    const limiter = new RedisRateLimiter('redis://127.0.0.1:1', 1, silent);
    closers.push(() => limiter.close());
    const first = await limiter.hit('k');
    const second = await limiter.hit('k');
    expect([first.allowed, second.allowed]).toEqual([true, false]);
    expect(limiter.holdingLocally).toBe(true);
  });

  it('REDIS_URL makes the app use Redis', async () => {
    const t = await createTestApp({ REDIS_URL, RATE_LIMIT_PER_MINUTE: '3' });
    closers.push(() => t.close());
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) {
      codes.push(
        (await t.app.inject({ url: '/api/payment-gateway/cstatus', headers: { 'x-api-key': t.testKey } })).statusCode,
      );
    }
    expect(codes).toEqual([200, 200, 200, 429]);
  });
});

describe('rate limits shared through Redis by separate gateway processes', () => {
  it('two processes on one database enforce one limit per key', async () => {
    const { startGateway } = await import('../../helpers/processes.js');
    const t = await createTestApp();
    const env = { DATABASE_URL: t.databaseUrl, REDIS_URL, RATE_LIMIT_PER_MINUTE: '4', DEMO_MERCHANT: 'false' };
    const gateways = await Promise.all([startGateway(env), startGateway(env)]);
    try {
      // Each process's Redis connection made and its script loaded first, by a request with another key
      // (a window of its own): a first command on a loaded machine can pass the 500 ms command timeout,
      // and that process then rightly counts in its own memory, which is not what this test is about.
      for (const g of gateways)
        await fetch(`${g.url}/api/payment-gateway/cstatus`, { headers: { 'x-api-key': t.liveKey } });
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${gateways[i % 2]!.url}/api/payment-gateway/cstatus`, {
          headers: { 'x-api-key': t.testKey },
        });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await Promise.all(gateways.map((g) => g.stop()));
      await t.close();
    }
  }, 180_000);
});
