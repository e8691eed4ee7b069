// A real gateway process (bin/qris-gateway.mjs serve) on a fresh database of this run's kind (a SQLite
// file, or a PostgreSQL schema of its own), with a merchant and its keys seeded through the services,
// for tests that talk to the gateway as an integrator's program does: over HTTP, from outside.
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
  stop(): Promise<void>;
}

export async function startSeededGateway(env: Record<string, string> = {}): Promise<SeededGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'qg-gateway-'));
  const fresh = await freshDatabaseUrl(dir);
  let database: Database | null = null;
  let gateway: GatewayProcess | null = null;
  const cleanUp = async () => {
    await gateway?.stop();
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
    gateway = await startGateway(settings);
    return { ...seeded, url: gateway.url, process: gateway, deps, stop: cleanUp };
  } catch (err) {
    await cleanUp();
    throw err;
  }
}
