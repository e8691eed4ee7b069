import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { withJsRows, type JsRowsStatement } from './sqlite-rows.js';
import { registerDirectReads } from './direct-reads.js';
import { registerDataVersion } from './data-version.js';
import type { DB } from './schema.js';
import { registerWalSync, WalSync } from './wal-sync.js';
import { BACKSTOP_PAGES, startCheckpointer } from './checkpointer.js';
import { settled } from './unit-of-work.js';

export type { Dialect } from './schema.js';
import type { Dialect } from './schema.js';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  close(): Promise<void>;
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
  /** SQLite: checkpoint from a worker thread (a long-running server); short-lived commands need not. */
  backgroundCheckpoints?: boolean;
}

export function openDatabase(url: string, options: OpenOptions = {}): Database {
  const sqlitePath = sqlitePathFromUrl(url);
  if (sqlitePath !== null) return openSqlite(sqlitePath, options.backgroundCheckpoints ?? false);
  if (/^postgres(ql)?:\/\//.test(url)) return openPostgres(url, options.poolSize ?? 10);
  throw new Error('DATABASE_URL must start with sqlite: or postgres://');
}

function openSqlite(path: string, backgroundCheckpoints: boolean): Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new BetterSqlite3(path);
  // WAL lets readers run beside the writer; better-sqlite3 would otherwise run WAL with
  // synchronous=NORMAL, which can lose the last commits on power loss. A create is acknowledged only
  // once its row is durable, so FULL is set explicitly.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const statements = memoisedStatements(sqlite);
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: statements }) });
  // Prepared reads skip Kysely's connection queue when no transaction is open (direct-reads.ts).
  registerDirectReads(db, sqlite, statements.prepare);
  // Lets a server notice commits of other processes without reading rows (data-version.ts).
  registerDataVersion(db, sqlite);
  // Group commits flush the log themselves, off the event loop (wal-sync.ts).
  const wal = path === ':memory:' ? null : new WalSync(`${path}-wal`);
  if (wal) registerWalSync(db, wal);
  // Checkpoints off the event loop (checkpointer.ts); this connection's own become a rare backstop.
  const checkpointer = path === ':memory:' || !backgroundCheckpoints ? null : startCheckpointer(path);
  if (checkpointer) sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  return {
    db,
    dialect: 'sqlite',
    close: async () => {
      await settled(db);
      await checkpointer?.stop();
      await db.destroy();
      await wal?.close();
    },
  };
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

function openPostgres(url: string, poolSize: number): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, Client: NamingClient });
  // An idle client's error (the server restarting) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    close: () => db.destroy(),
  };
}

/** How many distinct statement texts get a name (variable IN-lists make new texts; the rest run unnamed). */
const NAMED_STATEMENT_LIMIT = 300;
/**
 * Of those, how many may go to bulk texts: statements with more than BULK_PARAMETERS values are the
 * multi-row inserts and long IN-lists of batched creates, whose text changes with the batch size. One
 * short bench run named 227 texts, most of them bulk; without this share a flash sale right after start
 * could spend every name before the payment statements first run, leaving them unnamed for good.
 */
const BULK_NAME_LIMIT = 100;
const BULK_PARAMETERS = 20;
const statementNames = new Map<string, string>();
let bulkNames = 0;
const NAMEABLE = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * PostgreSQL's counterpart of the SQLite statement cache. node-postgres sends every parameterised query
 * as an unnamed statement, which the server parses and plans each time: for a primary-key read that
 * was half of the server's CPU (about 160 µs of 230 here). A named statement is parsed once per
 * connection and then only bound and executed. Names are permanent (node-postgres refuses to reuse one
 * for other text), so only the first NAMED_STATEMENT_LIMIT distinct texts get one, and bulk texts at most
 * BULK_NAME_LIMIT of them; the hot statements are among the first a server runs. Transaction control and
 * other commands stay unnamed.
 */
export function statementName(text: string, parameterCount = 0): string | undefined {
  const known = statementNames.get(text);
  if (known !== undefined) return known;
  if (statementNames.size >= NAMED_STATEMENT_LIMIT || !NAMEABLE.test(text)) return undefined;
  const bulk = parameterCount > BULK_PARAMETERS;
  if (bulk && bulkNames >= BULK_NAME_LIMIT) return undefined;
  if (bulk) bulkNames += 1;
  const name = `qg_${statementNames.size + 1}`;
  statementNames.set(text, name);
  return name;
}

class NamingClient extends pg.Client {
  // Kysely calls query(text, values) for every statement; anything else (a cursor, a config object)
  // passes through untouched.
  override query(...args: unknown[]): never {
    const run = super.query as unknown as (...a: unknown[]) => never;
    const [text, values] = args;
    if (typeof text === 'string' && args.length === 2 && Array.isArray(values)) {
      const name = statementName(text, values.length);
      if (name !== undefined) return run.call(this, { name, text, values });
    }
    return run.apply(this, args);
  }
}
