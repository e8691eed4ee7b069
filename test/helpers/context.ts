import { newServiceState } from '../../src/services/state.js';
import { afterEach } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { buildApp } from '../../src/app.js';
import { openRuntime } from '../../src/runtime.js';
import { createLogger, silentLogger } from '../../src/http/logger.js';
import type { RateLimiter } from '../../src/http/rate-limit.js';
import { openDatabase, type Database } from '../../src/storage/database.js';
import { migratedPostgresSchema, migratedSqliteFile } from './migrated-database.js';
import { createApiKey } from '../../src/services/merchants/create-api-key.js';
import { createMerchant } from '../../src/services/merchants/create-merchant.js';
import type { Deps } from '../../src/services/deps.js';
import { codeIssuers } from '../../src/payment-sources/issuers.js';
import { sourceCatalog } from '../../src/payment-sources/kinds.js';
import type { MerchantsTable } from '../../src/storage/schema.js';
import type { CreateTransactionInput } from '../../src/services/transactions/create-transaction.js';

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

/** True when this run of the suite is the PostgreSQL one (scripts/test.mjs sets it with TEST_DATABASE_URL). */
export const onPostgres = process.env.QG_TEST_DATABASE === 'postgres' && !!process.env.TEST_DATABASE_URL;

/**
 * A fresh database for one test context: a temporary SQLite file, or on the PostgreSQL run a schema of
 * its own in TEST_DATABASE_URL (dropped on close), selected through the connection's search_path.
 */
export async function freshDatabaseUrl(dir: string): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!onPostgres) return { url: `sqlite:${join(dir, 'gateway.db')}`, drop: async () => {} };
  const base = process.env.TEST_DATABASE_URL!;
  const schema = `qg_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

/** The dialects this run of the suite covers: SQLite always, PostgreSQL too on the PostgreSQL run. */
export const testDialects = onPostgres ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

/**
 * An unmigrated database of one dialect for storage tests that bring their own table: a temporary SQLite
 * file, or a schema of its own in TEST_DATABASE_URL. `prepare` creates what the test needs.
 */
export async function openScratchDatabase(
  dialect: 'sqlite' | 'postgres',
  prepare: (database: Database) => Promise<void>,
): Promise<{ database: Database; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'qg-scratch-'));
  const fresh =
    dialect === 'sqlite'
      ? { url: `sqlite:${join(dir, 'scratch.db')}`, drop: async () => {} }
      : await freshDatabaseUrl(dir);
  const database = openDatabase(fresh.url);
  await prepare(database);
  return {
    database,
    async close() {
      await database.close();
      await fresh.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A migrated fresh database (see freshDatabaseUrl), with the given settings over the defaults. */
export async function createTestContext(env: Record<string, string> = {}): Promise<TestContext> {
  const dir = mkdtempSync(join(tmpdir(), 'qg-test-'));
  // Migrated already, by the migrations of these sources (see migrated-database.ts).
  const fresh = onPostgres
    ? await migratedPostgresSchema(process.env.TEST_DATABASE_URL!)
    : await migratedSqliteCopy(dir);
  const databaseUrl = fresh.url;
  // The event-loop delay shedder measures the machine, not the code: on a CI host loaded past its cores it
  // would refuse a test's requests as overloaded. Off unless a test sets it (overload.test.ts does).
  const config = loadConfig({
    PUBLIC_BASE_URL: 'http://gateway.test',
    RATE_LIMIT_PER_MINUTE: '0',
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    ...env,
    DATABASE_URL: databaseUrl,
  });
  // The connection wait as configured (DATABASE_CONNECT_TIMEOUT_MS, 5 s by default), as the runtime opens it:
  // a test of many requests queued on one row's lock raises it, so a loaded machine cannot make them 503.
  const database = openDatabase(config.databaseUrl, { connectTimeoutMs: config.databaseConnectTimeoutMs });
  const clock = new TestClock();
  const deps: Deps = {
    db: database,
    config,
    now: clock.now,
    logger: silentLogger(),
    issuers: codeIssuers,
    sources: sourceCatalog,
    state: newServiceState(),
  };
  return {
    config,
    deps,
    database,
    clock,
    dir,
    databaseUrl,
    async close() {
      // A test may have closed the database itself (to see how the app copes); closing twice is fine.
      await database.close().catch(() => {});
      await fresh.release();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function migratedSqliteCopy(dir: string): Promise<{ url: string; release: () => Promise<void> }> {
  const file = join(dir, 'gateway.db');
  await migratedSqliteFile(file);
  return { url: `sqlite:${file}`, release: async () => {} };
}

export interface Seeded {
  merchant: MerchantsTable;
  testKey: string;
  liveKey: string;
}

/**
 * A SQLite file at `path`, migrated as a gateway's first start would, holding a seeded merchant: for tests
 * that then start a real gateway process on it. Returns the merchant's test key.
 */
export async function seedSqliteFile(path: string): Promise<string> {
  const runtime = await openRuntime(loadConfig({ DATABASE_URL: `sqlite:${path}` }));
  try {
    return (await seedMerchant(runtime.deps)).testKey;
  } finally {
    await runtime.close();
  }
}

/**
 * A merchant (one of the fixture static codes) with a test key and a live key. There are three codes and
 * some tests seed more merchants, so a code already saved is saved again (as an operator may decide to:
 * the duplicate-NMID rule itself is tested through createMerchant and the console).
 */
export async function seedMerchant(deps: Deps, vectorIndex = 0, name = 'Test Merchant'): Promise<Seeded> {
  const merchant = await createMerchant(deps, {
    name,
    qris: vectors.vectors[vectorIndex]!.static,
    allowDuplicateNmid: true,
  });
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
  const logger = options.captureLogs
    ? createLogger({ level: 'trace', destination: { write: (line) => logs.push(line) } })
    : undefined;
  // The app logs through its deps (Deps.logger): this test's collector, when asked for.
  if (logger) ctx.deps.logger = logger;
  const app = await buildApp({
    deps: ctx.deps,
    ...(options.rateLimiter !== undefined ? { rateLimiter: options.rateLimiter } : {}),
  });
  await app.ready();
  return {
    ...ctx,
    ...seeded,
    app,
    logs,
    async close() {
      // The test is over and no request is on its way: idle keep-alive connections can go at once,
      // where a running server waits for their keep-alive time to run out (graceful-close.ts).
      app.server.closeIdleConnections();
      await app.close();
      await ctx.close();
    },
  };
}

/** A plain test-mode create of `amount` for the service layer (no e-mail, ref, expiry or Idempotency-Key). */
export function createInput(
  merchantId: string,
  amount: number,
  extra: Partial<CreateTransactionInput> = {},
): CreateTransactionInput {
  return {
    merchantId,
    mode: 'test',
    amount,
    email: null,
    ref: null,
    expiresInSeconds: null,
    idempotency: null,
    ...extra,
  };
}

/**
 * For a describe block whose tests each call `setup(env)`: a fresh context with a seeded merchant, closed
 * after each test, and `input(amount)` for that merchant's plain creates.
 */
export function useSeededContext(): {
  readonly ctx: TestContext;
  readonly seeded: Seeded;
  setup(env?: Record<string, string>): Promise<void>;
  input(amount: number, extra?: Partial<CreateTransactionInput>): CreateTransactionInput;
} {
  let ctx: TestContext | undefined;
  let seeded: Seeded | undefined;
  afterEach(async () => {
    await ctx?.close();
    ctx = undefined;
    seeded = undefined;
  });
  return {
    get ctx() {
      if (!ctx) throw new Error('call setup() first');
      return ctx;
    },
    get seeded() {
      if (!seeded) throw new Error('call setup() first');
      return seeded;
    },
    async setup(env = {}) {
      ctx = await createTestContext(env);
      seeded = await seedMerchant(ctx.deps);
    },
    input: (amount, extra = {}) => createInput(seeded!.merchant.id, amount, extra),
  };
}
