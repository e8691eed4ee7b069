import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, type Dialect as KyselyDialect } from 'kysely';
import { ImmediateSqliteDialect } from './sqlite-dialect.js';
import { withJsRows, type JsRowsStatement } from './engine/sqlite-rows.js';
import { directReads, type DirectReads } from './engine/direct-reads.js';
import type { DB } from './schema.js';
import { WalSync } from './engine/wal-sync.js';
import { BACKSTOP_PAGES, startCheckpointer } from './engine/checkpointer.js';
import { GroupCommit, type BatchStats, type UnitOfWork, type WriteOutageEvent } from './engine/unit-of-work.js';
import { StatementNames } from './engine/statement-names.js';
import { classifyingDialect } from './unavailable-driver.js';
import { QueryWatchdog } from './pg-query-watchdog.js';
import { createOwnerOnlyFile, ensureOwnerOnlyDir, tightenToOwnerOnly } from './owner-only.js';

export type { Dialect } from './schema.js';
import type { Dialect } from './schema.js';

type Pragma = (source: string, options: { simple: true }) => unknown;

/** SQLite's own connection, as the database object needs it beyond Kysely. */
interface SqliteParts {
  connection: { pragma: Pragma; readonly open: boolean; readonly inTransaction: boolean };
  prepare(sql: string): JsRowsStatement;
  wal: WalSync | null;
  /** The database's files still open to other users because this process could not change them. */
  filesOpenToOthers: readonly string[];
}

/**
 * One open database: the Kysely instance that storage's queries run on, and everything this process
 * keeps per database beside it (SQLite's group commit, its log flusher and its direct reads; PostgreSQL's
 * statement names). Services are handed this object as `deps.db` and pass it to storage's query
 * functions; they write only through `runInTransaction`. Kysely's own `transaction()` and `startTransaction()` are refused, so nothing can
 * bypass group commit by accident.
 */
export class Database extends Kysely<DB> {
  readonly dialect: Dialect;
  /** SQLite: reads that skip Kysely's connection queue (direct-reads.ts); null on PostgreSQL. */
  readonly directReads: DirectReads | null;
  /** SQLite on a file: the log flusher that group commits wait on (wal-sync.ts). */
  readonly walSync: WalSync | null;
  /** PostgreSQL: the statement names its connections use (engine/statement-names.ts); null on SQLite. */
  readonly statementNames: StatementNames | null;
  /**
   * SQLite: its database file, -wal or -shm that others may read and this process could not make
   * owner-only (another user's), for a warning at start; empty when all are its own (owner-only.ts).
   */
  readonly filesOpenToOthers: readonly string[];
  readonly #groupCommit: GroupCommit | null;
  readonly #sqlite: SqliteParts['connection'] | null;
  readonly #cleanUp: () => Promise<void>;
  readonly #watchdog: QueryWatchdog | null;

  constructor(
    dialect: KyselyDialect,
    kind: Dialect,
    sqlite: SqliteParts | null,
    cleanUp: () => Promise<void> = async () => {},
    statementNames: StatementNames | null = null,
    watchdog: QueryWatchdog | null = null,
  ) {
    // Every query's failure of the database itself becomes database_unavailable / storage_unavailable.
    super({ dialect: classifyingDialect(dialect) });
    this.dialect = kind;
    this.statementNames = statementNames;
    this.#sqlite = sqlite?.connection ?? null;
    this.directReads = sqlite ? directReads(sqlite.connection, sqlite.prepare) : null;
    this.walSync = sqlite?.wal ?? null;
    this.filesOpenToOthers = sqlite?.filesOpenToOthers ?? [];
    // Group commits flush the log themselves, off the event loop (wal-sync.ts).
    this.#groupCommit = sqlite ? new GroupCommit(this, this.walSync) : null;
    this.#cleanUp = cleanUp;
    this.#watchdog = watchdog;
  }

  /**
   * PostgreSQL: runs `fn` with DATABASE_QUERY_TIMEOUT_MS lifted (pg-query-watchdog.ts), for the
   * migrations at start (migrate.ts), which may rightly run, or wait for another instance's, longer.
   */
  async withoutQueryTimeout<T>(fn: () => Promise<T>): Promise<T> {
    const resume = this.#watchdog?.suspend();
    try {
      return await fn();
    } finally {
      resume?.();
    }
  }

  /**
   * The one way to write: runs the unit of work in a transaction and answers after its commit. On SQLite
   * the units of one event-loop turn share one transaction and one fsync (unit-of-work.ts); on
   * PostgreSQL, whose pool runs transactions in parallel, each unit gets its own.
   */
  runInTransaction<T>(fn: UnitOfWork<T>): Promise<T> {
    if (this.#groupCommit) return this.#groupCommit.run(fn);
    return super.transaction().execute(fn);
  }

  override transaction(): never {
    throw new Error('write through db.runInTransaction (storage/database.ts), which keeps group commit');
  }

  override startTransaction(): never {
    throw new Error('write through db.runInTransaction (storage/database.ts), which keeps group commit');
  }

  /**
   * SQLite: tells `listener` once when commits start failing for storage (a full disk, a file-size limit,
   * an I/O error) and once when one succeeds again; the server logs both (runtime.ts). PostgreSQL's own
   * disk is its server's business: nothing is told there.
   */
  onWriteOutage(listener: (event: WriteOutageEvent) => void): void {
    if (this.#groupCommit) this.#groupCommit.onOutage = listener;
  }

  /** Group commits so far (SQLite; zeros on PostgreSQL, where every unit commits alone). */
  get commitStats(): BatchStats {
    return this.#groupCommit?.stats ?? { commits: 0, units: 0 };
  }

  /**
   * SQLite's `PRAGMA data_version` of this connection: a number that changes whenever another
   * connection (another process: the CLI, a worker) has committed to the file since the last call.
   * Commits made on this connection do not change it; this process already knows of those. Reading it
   * costs a look at the log's shared index, no page of the database, so a server can ask every second
   * whether anything at all changed before it reads a single row. Null on PostgreSQL or once closed.
   */
  dataVersion(): number | null {
    if (!this.#sqlite?.open) return null;
    return Number(this.#sqlite.pragma('data_version', { simple: true }));
  }

  /** Resolves once every unit of work handed in so far has been committed (or has failed) and answered. */
  settled(): Promise<void> {
    return this.#groupCommit?.settled() ?? Promise.resolve();
  }

  /** Waits for the writes in flight, then closes the connection(s). */
  async close(): Promise<void> {
    await this.settled();
    await this.#cleanUp();
  }
}

// node-postgres returns BIGINT as a string to avoid precision loss; every bigint here is a rupiah amount
// or a millisecond timestamp, both far below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

export function sqlitePathFromUrl(url: string): string | null {
  if (!url.startsWith('sqlite:')) return null;
  const rest = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
  if (rest === '') throw new Error('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/qris-gateway.db');
  return rest === ':memory:' ? rest : resolve(rest);
}

export interface OpenOptions {
  poolSize?: number;
  /** PostgreSQL: how long to wait for a connection (a new one, or a free one of the pool) before failing. */
  connectTimeoutMs?: number;
  /** PostgreSQL: a query still unanswered after this long has its connection ended (pg-query-watchdog.ts); 0 never. */
  queryTimeoutMs?: number;
  /** SQLite: checkpoint from a worker thread (a long-running server); short-lived commands need not. */
  backgroundCheckpoints?: boolean;
}

export function openDatabase(url: string, options: OpenOptions = {}): Database {
  const sqlitePath = sqlitePathFromUrl(url);
  if (sqlitePath !== null) return openSqlite(sqlitePath, options.backgroundCheckpoints ?? false);
  if (/^postgres(ql)?:\/\//.test(url))
    return openPostgres(
      url,
      options.poolSize ?? 10,
      options.connectTimeoutMs ?? 5000,
      options.queryTimeoutMs ?? 30_000,
    );
  throw new Error('DATABASE_URL must start with sqlite: or postgres://');
}

function openSqlite(path: string, backgroundCheckpoints: boolean): Database {
  // The database holds every secret the gateway keeps (owner-only.ts): its folder, when made here, and its
  // file are owner-only before SQLite opens it, so the -wal and -shm SQLite makes take the file's 0600.
  // Those an earlier version left 0644 are tightened.
  let filesOpenToOthers: string[] = [];
  if (path !== ':memory:') {
    ensureOwnerOnlyDir(dirname(path));
    try {
      createOwnerOnlyFile(path);
    } catch (err) {
      // There already (made by an earlier start or another process): tightened below if it needs it.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    filesOpenToOthers = tightenToOwnerOnly([path, `${path}-wal`, `${path}-shm`]);
  }
  const sqlite = new BetterSqlite3(path);
  // WAL lets readers run beside the writer; better-sqlite3 would otherwise run WAL with
  // synchronous=NORMAL, which can lose the last commits on power loss. A create is acknowledged only
  // once its row is durable, so FULL is set explicitly.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const statements = memoisedStatements(sqlite);
  const wal = path === ':memory:' ? null : new WalSync(`${path}-wal`);
  // Checkpoints off the event loop (checkpointer.ts); this connection's own become a rare backstop.
  const checkpointer = path === ':memory:' || !backgroundCheckpoints ? null : startCheckpointer(path);
  if (checkpointer) sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  const db: Database = new Database(
    new ImmediateSqliteDialect({ database: statements }),
    'sqlite',
    { connection: sqlite, prepare: statements.prepare, wal, filesOpenToOthers },
    async () => {
      await checkpointer?.stop();
      await db.destroy();
      await wal?.close();
    },
  );
  return db;
}

/** How many distinct query strings keep their prepared statement (variable IN-lists make new ones). */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver calls prepare() for every query, and SQLite parses and plans the SQL each time.
 * A better-sqlite3 statement can be run any number of times, so the hot queries are prepared once. The
 * driver uses only prepare() and close(). (A statement is busy only while an iterate() is open, which
 * only Kysely's stream() uses; this code base does not stream.) Reading statements build their rows in
 * JavaScript (sqlite-rows.ts).
 */
function memoisedStatements(sqlite: BetterSqlite3.Database): { prepare(sql: string): JsRowsStatement; close(): void } {
  const cache = new Map<string, JsRowsStatement>();
  return {
    prepare(sql) {
      let stmt = cache.get(sql);
      if (stmt) return stmt;
      stmt = withJsRows(sqlite.prepare(sql));
      // Oldest-first eviction is enough: the hot statements are re-added at once if ever evicted.
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(sql, stmt);
      return stmt;
    },
    close() {
      cache.clear();
      sqlite.close();
    },
  };
}

function openPostgres(url: string, poolSize: number, connectTimeoutMs: number, queryTimeoutMs: number): Database {
  const statementNames = new StatementNames();
  const watchdog = queryTimeoutMs > 0 ? new QueryWatchdog(queryTimeoutMs) : null;
  // connectionTimeoutMillis bounds both a new connection and the wait for a free one: while the server is
  // down or unreachable (no answer at all, not only a refusal), a request fails with database_unavailable
  // (unavailable.ts) instead of waiting out TCP's own timeout. keepAlive finds a silently dropped
  // connection that sits idle in the pool.
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
    Client: namingClient(statementNames, watchdog),
  });
  // An idle client's error (the server restarting) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db: Database = new Database(
    new PostgresDialect({ pool }),
    'postgres',
    null,
    async () => {
      watchdog?.stop();
      await db.destroy();
    },
    statementNames,
    watchdog,
  );
  return db;
}

/**
 * A pool's client class that sends each nameable query as a named statement (statement-names.ts), with
 * the names of one database: made per pool, so no name is shared with another database in the process.
 */
function namingClient(names: StatementNames, watchdog: QueryWatchdog | null): typeof pg.Client {
  return class NamingClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      // A checked-out connection that the server ends between two queries (pg_terminate_backend, a
      // restart) emits 'error' with no query to reject; unheard, that event would end the process. The
      // next query on it fails (database_unavailable) and the pool drops it when it is released.
      this.on('error', () => {});
      watchdog?.watch(this);
    }

    // Kysely calls query(text, values) for every statement; anything else (a cursor, a config object)
    // passes through untouched.
    override query(...args: unknown[]): never {
      const run = super.query as unknown as (...a: unknown[]) => never;
      const [text, values] = args;
      if (typeof text === 'string' && args.length === 2 && Array.isArray(values)) {
        const name = names.name(text, values.length);
        if (name !== undefined) return run.call(this, { name, text, values });
      }
      return run.apply(this, args);
    }
  };
}
