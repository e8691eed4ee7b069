import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely';

const BEGIN_IMMEDIATE = CompiledQuery.raw('begin immediate');

/**
 * Kysely's SQLite dialect, whose transactions take the write lock as they begin (BEGIN IMMEDIATE).
 *
 * Every transaction here is a write (runInTransaction, the migrations). A plain BEGIN starts a reader
 * that becomes a writer at its first write; if another process committed in between (the CLI paying or
 * assigning while the server runs, an api and a worker process on one file), SQLite cannot upgrade the
 * stale snapshot and answers "database is locked" at once, without the busy timeout: measured, 672 of
 * some 700 read-then-write units failed beside a process committing every millisecond
 * (test/integration/storage/sqlite-writers.test.ts). BEGIN IMMEDIATE waits for the lock under the busy timeout
 * instead, and costs the same one statement in a single process.
 */
export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(BEGIN_IMMEDIATE);
  }
}
