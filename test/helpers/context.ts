import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { createLogger } from '../../src/http/logger.js';
import type { RateLimiter } from '../../src/http/rate-limit.js';
import { openDatabase, type Database } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { createApiKey } from '../../src/services/api-keys.js';
import { createMerchant } from '../../src/services/create-merchant.js';
import type { Deps } from '../../src/services/deps.js';
import type { MerchantsTable } from '../../src/storage/schema.js';

export const vectors = JSON.parse(readFileSync(new URL('../fixtures/qris-vectors.json', import.meta.url), 'utf8')) as {
  vectors: Array<{ merchant: string; static: string; cases: Array<{ amount: number; dynamic: string }> }>;
  invalid: Array<{ why: string; payload: string }>;
};

/** A clock tests can move: services read time only through deps.now. */
export class TestClock {
  constructor(public ms = Date.now()) {}
  now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

export interface TestContext {
  config: Config;
  deps: Deps;
  database: Database;
  clock: TestClock;
  dir: string;
  databaseUrl: string;
  close(): Promise<void>;
}

/** A migrated database in a fresh temporary SQLite file, with the given settings over the defaults. */
export async function createTestContext(env: Record<string, string> = {}): Promise<TestContext> {
  const dir = mkdtempSync(join(tmpdir(), 'qg-test-'));
  const databaseUrl = `sqlite:${join(dir, 'gateway.db')}`;
  const config = loadConfig({ PUBLIC_BASE_URL: 'http://gateway.test', RATE_LIMIT_PER_MINUTE: '0', ...env, DATABASE_URL: databaseUrl });
  const database = openDatabase(config.databaseUrl);
  await migrateToLatest(database.db);
  const clock = new TestClock();
  const deps: Deps = { db: database.db, dialect: database.dialect, config, now: clock.now };
  return {
    config,
    deps,
    database,
    clock,
    dir,
    databaseUrl,
    async close() {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Seeded {
  merchant: MerchantsTable;
  testKey: string;
  liveKey: string;
}

/** A merchant (one of the fixture static codes) with a test key and a live key. */
export async function seedMerchant(deps: Deps, vectorIndex = 0, name = 'Test Merchant'): Promise<Seeded> {
  const merchant = await createMerchant(deps, { name, qris: vectors.vectors[vectorIndex]!.static });
  const testKey = (await createApiKey(deps, { merchantId: merchant.id, mode: 'test' })).key;
  const liveKey = (await createApiKey(deps, { merchantId: merchant.id, mode: 'live' })).key;
  return { merchant, testKey, liveKey };
}

export interface TestApp extends TestContext, Seeded {
  app: FastifyInstance;
  /** Every log line the app wrote, when built with captureLogs. */
  logs: string[];
}

export async function createTestApp(
  env: Record<string, string> = {},
  options: { captureLogs?: boolean; rateLimiter?: RateLimiter | null } = {},
): Promise<TestApp> {
  const ctx = await createTestContext(env);
  const seeded = await seedMerchant(ctx.deps);
  const logs: string[] = [];
  const logger = options.captureLogs ? createLogger({ level: 'trace', destination: { write: (line) => logs.push(line) } }) : undefined;
  const app = await buildApp({
    deps: ctx.deps,
    ...(logger ? { logger } : {}),
    ...(options.rateLimiter !== undefined ? { rateLimiter: options.rateLimiter } : {}),
  });
  await app.ready();
  return {
    ...ctx,
    ...seeded,
    app,
    logs,
    async close() {
      await app.close();
      await ctx.close();
    },
  };
}
