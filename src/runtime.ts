import type { Logger } from 'pino';
import type { Config } from './config.js';
import { silentLogger } from './http/logger.js';
import { openDatabase, type Database } from './storage/database.js';
import { migrateToLatest, type MigrationReport } from './storage/migrate.js';
import type { Deps } from './services/deps.js';
import { newServiceState } from './services/state.js';
import { codeIssuers } from './payment-sources/issuers.js';
import { sourceCatalog } from './payment-sources/kinds.js';

export interface Runtime {
  database: Database;
  deps: Deps;
  /** What opening it migrated (nothing, on every start after an upgrade's first). */
  migrated: MigrationReport;
  close(): Promise<void>;
}

/**
 * Opens the configured database, brings its schema up to date and assembles the services' deps, with
 * the given logger (a silent one when none is given: commands that log nowhere).
 */
export async function openRuntime(
  config: Config,
  now: () => number = Date.now,
  options: { server?: boolean; logger?: Logger } = {},
): Promise<Runtime> {
  const database = openDatabase(config.databaseUrl, {
    poolSize: config.databasePoolSize,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    queryTimeoutMs: config.databaseQueryTimeoutMs,
    backgroundCheckpoints: options.server ?? false,
  });
  const logger = options.logger ?? silentLogger();
  let migrated: MigrationReport;
  try {
    // A failure or a refusal is a StartupError saying what was left and what to do (storage/migrate.ts).
    migrated = await migrateToLatest(database, database.dialect, {
      backupDir: database.dialect === 'sqlite' ? config.backupDir : null,
    });
    if (migrated.applied.length > 0)
      logger.info({ migrations: migrated.applied, backup: migrated.backup }, 'database migrated');
  } catch (err) {
    await database.close();
    throw err;
  }
  if (database.filesOpenToOthers.length > 0) {
    logger.warn(
      { files: database.filesOpenToOthers },
      'the SQLite database files are open to other users and belong to another user, so they could not be made owner-only: they hold every secret the gateway keeps; chmod 600 them',
    );
  }
  database.onWriteOutage((event) => {
    if (event.state === 'started') {
      logger.warn(
        { err: event.err },
        'storage unavailable: writes answer 503 storage_unavailable until the disk takes them again',
      );
    } else {
      logger.info({ refused: event.refused, ms: event.ms }, 'storage writable again');
    }
  });
  const deps: Deps = {
    db: database,
    config,
    now,
    logger,
    issuers: codeIssuers,
    sources: sourceCatalog,
    state: newServiceState(),
  };
  return { database, deps, migrated, close: () => database.close() };
}
