// A real gateway process (bin/qris-gateway.mjs serve) on a fresh database of this run's kind (a SQLite
// file, or a PostgreSQL schema of its own), with a merchant and its keys seeded through the services,
// for tests that talk to the gateway as an integrator's program does: over HTTP, from outside. A test of a
// crash kills `process` (stop('SIGKILL')) and starts the next one on the same database (startAnother).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { codeIssuers } from '../../src/payment-sources/issuers.js';
import { silentLogger } from '../../src/http/logger.js';
import { sourceCatalog } from '../../src/payment-sources/kinds.js';
import type { Deps } from '../../src/services/deps.js';
import { newServiceState } from '../../src/services/state.js';
import { openDatabase, type Database } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { freshDatabaseUrl, seedMerchant, type Seeded } from './context.js';
import { startGateway, type GatewayProcess } from './processes.js';

export interface SeededGateway extends Seeded {
  url: string;
  process: GatewayProcess;
  /** Services on the same database, for setting things up (webhook endpoints, more merchants). */
  deps: Deps;
  /**
   * Another gateway process on the same database (the same SQLite file, or the same PostgreSQL schema) with
   * the same settings, as a restart after a crash starts: `process` is left as it is, so a test kills it
   * first. Stopped by stop() like the first, before the database is dropped.
   */
  startAnother(): Promise<GatewayProcess>;
  /** Stops every process of this gateway, then drops its database. */
  stop(): Promise<void>;
}

export async function startSeededGateway(env: Record<string, string> = {}): Promise<SeededGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'qg-gateway-'));
  const fresh = await freshDatabaseUrl(dir);
  let database: Database | null = null;
  const processes: GatewayProcess[] = [];
  const cleanUp = async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await database?.close();
    await fresh.drop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    database = openDatabase(fresh.url);
    await migrateToLatest(database, database.dialect);
    const settings = {
      DATABASE_URL: fresh.url,
      DEMO_MERCHANT: 'false',
      RATE_LIMIT_PER_MINUTE: '0',
      DATABASE_POOL_SIZE: '4',
      WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8',
      WEBHOOK_DISPATCH_INTERVAL_MS: '100',
      ...env,
    };
    const deps: Deps = {
      db: database,
      config: loadConfig(settings),
      now: Date.now,
      logger: silentLogger(),
      issuers: codeIssuers,
      sources: sourceCatalog,
      state: newServiceState(),
    };
    const seeded = await seedMerchant(deps);
    const startAnother = async () => {
      const started = await startGateway(settings);
      processes.push(started);
      return started;
    };
    const gateway = await startAnother();
    return { ...seeded, url: gateway.url, process: gateway, deps, startAnother, stop: cleanUp };
  } catch (err) {
    await cleanUp();
    throw err;
  }
}
