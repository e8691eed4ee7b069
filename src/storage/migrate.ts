import { createHash } from 'node:crypto';
import { readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { sql, type Kysely, type Migration, type RawBuilder } from 'kysely';
import { StartupError } from '../startup-error.js';
import { copyDatabaseFile, verifyDatabaseFile } from './backup-files.js';
import { Database } from './database.js';
import { ensureOwnerOnlyDir } from './owner-only.js';
import * as core from './migrations/001-core.js';
import * as sourcesAndOutbox from './migrations/002-sources-and-outbox.js';
import * as paymentMatching from './migrations/003-payment-matching.js';
import * as snap from './migrations/004-snap.js';
import * as partialIndexes from './migrations/005-partial-indexes.js';
import * as cancel from './migrations/006-cancel.js';
import * as consoleTables from './migrations/007-console.js';
import * as signup from './migrations/008-signup.js';
import * as quotas from './migrations/009-quotas.js';
import * as paymentLinks from './migrations/010-payment-links.js';
import * as linkDailyCreates from './migrations/011-link-daily-creates.js';
import * as liveRejections from './migrations/012-live-rejections.js';
import * as comparedTransaction from './migrations/013-compared-transaction.js';
import * as notifyChannels from './migrations/014-notify-channels.js';
import * as cashiers from './migrations/015-cashiers.js';
import * as receipts from './migrations/016-receipts.js';
import * as amountPaid from './migrations/017-amount-paid.js';
import * as refunds from './migrations/018-refunds.js';
import * as dailyReports from './migrations/019-daily-reports.js';
import * as refundNotices from './migrations/020-refund-notices.js';
import * as sourceNotifications from './migrations/021-source-notifications.js';
import * as uniqueCodeMode from './migrations/022-unique-code-mode.js';
import * as sourceNames from './migrations/023-source-names.js';

// Migrations are listed in code rather than read from a folder, so the same list works from TypeScript
// sources, from dist/, and from a bundled install.
export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '001-core': core,
  '002-sources-and-outbox': sourcesAndOutbox,
  '003-payment-matching': paymentMatching,
  '004-snap': snap,
  '005-partial-indexes': partialIndexes,
  '006-cancel': cancel,
  '007-console': consoleTables,
  '008-signup': signup,
  '009-quotas': quotas,
  '010-payment-links': paymentLinks,
  '011-link-daily-creates': linkDailyCreates,
  '012-live-rejections': liveRejections,
  '013-compared-transaction': comparedTransaction,
  '014-notify-channels': notifyChannels,
  '015-cashiers': cashiers,
  '016-receipts': receipts,
  '017-amount-paid': amountPaid,
  '018-refunds': refunds,
  '019-daily-reports': dailyReports,
  '020-refund-notices': refundNotices,
  '021-source-notifications': sourceNotifications,
  '022-unique-code-mode': uniqueCodeMode,
  '023-source-names': sourceNames,
};

/** The bookkeeping table, as Kysely's Migrator made it (name and ISO time of each migration applied). */
const TABLE = 'kysely_migration';

export interface MigrateOptions {
  /** SQLite: the folder for the copy taken before pending migrations (BACKUP_DIR); beside the database file when unset. */
  backupDir?: string | null;
  /** The migrations to apply: this build's own unless a test gives another list. */
  migrations?: Readonly<Record<string, Migration>>;
  now?: () => number;
}

export interface MigrationReport {
  /** The migrations this call applied, in order (none when another process had, or nothing was pending). */
  applied: string[];
  /** SQLite: the copy of the database written before they ran; null when none was needed. */
  backup: string | null;
}

const nothing = (): MigrationReport => ({ applied: [], backup: null });

/**
 * Brings the schema up to date, so that an upgrade cannot lose data:
 * - every pending migration runs in one transaction on one connection: all apply, or none does;
 * - PostgreSQL: under a transaction-level advisory lock keyed by the schema's name (lockKeyOf), so
 *   instances starting together wait for each other and migrate once; other schemas are not held up;
 * - SQLite: in one `BEGIN IMMEDIATE` transaction (processes starting together take turns), and a database
 *   that already has migrations is first copied, verified, next to it or into BACKUP_DIR
 *   (backupBeforeMigrating), the copy named for the migrations it goes from and to;
 * - a failed migration rolls back and throws StartupError('migration_failed') saying that the database is
 *   as it was and naming the copy (SQLite) or pg_dump (PostgreSQL); the copy is kept;
 * - a database that lists a migration this build does not know was migrated by a newer release: refused
 *   with StartupError('database_too_new'), nothing written, no copy taken.
 * Every start after the first (and every CLI command) is answered by one read of the bookkeeping table,
 * without a lock. Kysely's Migrator is not used: it creates its tables outside its transaction, takes
 * one lock for every schema of the server, and lists the tables of every schema (which fails when
 * another process drops a schema meanwhile). The table it made, kysely_migration, is the one kept here.
 */
export async function migrateToLatest(
  db: Kysely<any>,
  dialect: 'sqlite' | 'postgres',
  options: MigrateOptions = {},
): Promise<MigrationReport> {
  const migrations = options.migrations ?? MIGRATIONS;
  return dialect === 'sqlite' ? migrateSqlite(db, migrations, options) : migratePostgres(db, migrations);
}

async function migrateSqlite(
  db: Kysely<any>,
  migrations: Readonly<Record<string, Migration>>,
  options: MigrateOptions,
): Promise<MigrationReport> {
  const table = sql.table(TABLE);
  const known = await appliedOrNull(db, table);
  if (known !== null && pendingOf(known, migrations).length === 0) return nothing();
  const file =
    (await sql<{ file: string }>`select file from pragma_database_list where name = 'main'`.execute(db)).rows[0]
      ?.file ?? '';
  return db.connection().execute(async (connection) => {
    await beginImmediate(connection, Date.now() + WRITE_LOCK_WAIT_MS);
    let backup: string | null = null;
    let pending: string[] = [];
    try {
      await createTable(connection, table);
      const applied = (await appliedOrNull(connection, table)) ?? [];
      pending = pendingOf(applied, migrations);
      if (pending.length === 0) {
        await sql`commit`.execute(connection);
        return nothing();
      }
      // A new database has nothing to lose; an in-memory one has no file to copy. The copy reads the
      // last commit from a connection of its own, beside this transaction, which has written nothing yet.
      if (applied.length > 0 && file !== '') {
        const from = [...applied].sort().at(-1)!;
        backup = await backupBeforeMigrating(
          file,
          options.backupDir ?? null,
          from,
          pending.at(-1)!,
          (options.now ?? Date.now)(),
        );
      }
      await runPending(connection, table, migrations, pending, (name, err) => sqliteFailure(name, err, backup));
      await sql`commit`.execute(connection);
      return { applied: pending, backup };
    } catch (err) {
      // A failed statement or COMMIT (a full disk) leaves the file as it was; SQLite may have rolled back already.
      await sql`rollback`.execute(connection).catch(() => {});
      if (err instanceof StartupError || backup === null) throw err;
      throw sqliteFailure(`${pending[0]} to ${pending.at(-1)}`, err, backup, 'the commit of migrations');
    }
  });
}

/**
 * How long a start waits for another process's migrations on the same SQLite file. The connection's own
 * busy_timeout (5 s, database.ts) is too short once a copy comes first: copying and checking a large
 * database takes longer (about 2 s for 70 MB).
 */
const WRITE_LOCK_WAIT_MS = 10 * 60_000;

async function beginImmediate(connection: Kysely<any>, deadline: number): Promise<void> {
  for (;;) {
    try {
      await sql`begin immediate`.execute(connection);
      return;
    } catch (err) {
      // SQLITE_BUSY after busy_timeout, classified as database_unavailable (unavailable.ts) with the driver's error as its cause.
      const code = String(
        (err as { cause?: { code?: unknown } }).cause?.code ?? (err as { code?: unknown }).code ?? '',
      );
      if (!code.startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw err;
    }
  }
}

async function migratePostgres(
  db: Kysely<any>,
  migrations: Readonly<Record<string, Migration>>,
): Promise<MigrationReport> {
  const schema =
    (await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db)).rows[0]?.schema ?? null;
  if (schema === null)
    throw new StartupError(
      'migration_failed',
      'the PostgreSQL connection has no schema to create tables in (the search_path names none that exists): create it, or fix the search_path of DATABASE_URL',
    );
  // Schema-qualified: a search_path of several schemas must not find another schema's table.
  const table = sql.table(`${schema}.${TABLE}`);
  const present = (
    await sql<{
      present: boolean;
    }>`select to_regclass(quote_ident(${schema}) || '.kysely_migration') is not null as present`.execute(db)
  ).rows[0];
  if (present?.present && pendingOf(await readApplied(db, table), migrations).length === 0) return nothing();
  // The wait for another instance's migrations, and a migration's own statements, may rightly outlast
  // DATABASE_QUERY_TIMEOUT_MS: ended half-way, every start would roll back and fail the same way.
  const run = () =>
    db.connection().execute(async (connection) => {
      await sql`begin`.execute(connection);
      try {
        // Held until this transaction ends; another instance waits here, then finds nothing pending.
        await sql`select pg_advisory_xact_lock(${sql.raw(lockKeyOf(schema))}::bigint)`.execute(connection);
        await createTable(connection, table);
        const pending = pendingOf(await readApplied(connection, table), migrations);
        if (pending.length > 0) await runPending(connection, table, migrations, pending, postgresFailure);
        await sql`commit`.execute(connection);
        return { applied: pending, backup: null };
      } catch (err) {
        await sql`rollback`.execute(connection).catch(() => {});
        throw err;
      }
    });
  return db instanceof Database ? db.withoutQueryTimeout(run) : run();
}

/**
 * The advisory lock key of a schema's migrations: the first 8 bytes of SHA-256 of
 * `qris-gateway migrations <schema>`, as PostgreSQL's signed bigint. Fixed for a schema whatever the
 * release, so old and new instances of one site take the same lock; distinct for two schemas.
 */
export function lockKeyOf(schema: string): string {
  const digest = createHash('sha256').update(`qris-gateway migrations ${schema}`).digest();
  return digest.readBigInt64BE(0).toString();
}

async function createTable(db: Kysely<any>, table: RawBuilder<unknown>): Promise<void> {
  await sql`create table if not exists ${table} (name varchar(255) not null primary key, timestamp varchar(255) not null)`.execute(
    db,
  );
}

async function readApplied(db: Kysely<any>, table: RawBuilder<unknown>): Promise<string[]> {
  return (await sql<{ name: string }>`select name from ${table}`.execute(db)).rows.map((r) => r.name);
}

/** SQLite: the migrations applied, or null before the first start made the table. */
async function appliedOrNull(db: Kysely<any>, table: RawBuilder<unknown>): Promise<string[] | null> {
  const exists = await sql<{
    n: number;
  }>`select count(*) as n from sqlite_schema where type = 'table' and name = ${TABLE}`.execute(db);
  return Number(exists.rows[0]?.n ?? 0) > 0 ? readApplied(db, table) : null;
}

/**
 * The migrations of `migrations` not yet applied, in order. Refuses a database that lists one this build
 * does not know (a newer release migrated it: going on would run this release's code on tables it does
 * not know, or a later release would find its own migration's work half undone), and one whose applied
 * migrations are not the first of the list (a migration was added out of order).
 */
function pendingOf(applied: readonly string[], migrations: Readonly<Record<string, Migration>>): string[] {
  const names = Object.keys(migrations).sort();
  const unknown = applied.filter((name) => !Object.hasOwn(migrations, name)).sort();
  if (unknown.length > 0) {
    throw new StartupError(
      'database_too_new',
      `this database was last migrated by a newer qris-gateway (it has migration ${unknown.at(-1)}, this release knows up to ${names.at(-1)}): start the newer release, or restore a backup made before the upgrade`,
    );
  }
  const done = new Set(applied);
  const pending = names.filter((name) => !done.has(name));
  const last = [...applied].sort().at(-1);
  if (last !== undefined && pending.length > 0 && pending[0]! < last) {
    throw new StartupError(
      'migration_failed',
      `the database has migration ${last} but not the earlier ${pending[0]}: migrations must be applied in order; nothing was changed`,
    );
  }
  return pending;
}

async function runPending(
  connection: Kysely<any>,
  table: RawBuilder<unknown>,
  migrations: Readonly<Record<string, Migration>>,
  pending: readonly string[],
  failure: (name: string, err: unknown) => StartupError,
): Promise<void> {
  for (const name of pending) {
    try {
      await migrations[name]!.up(connection);
      await sql`insert into ${table} (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(
        connection,
      );
    } catch (err) {
      throw failure(name, err);
    }
  }
}

const causeOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

function sqliteFailure(name: string, err: unknown, backup: string | null, what = 'migration'): StartupError {
  const copy =
    backup === null
      ? 'It was a new database: no copy was needed.'
      : `The copy taken before the upgrade is kept at ${backup}.`;
  return new StartupError(
    'migration_failed',
    `${what} ${name} failed (${causeOf(err)}): the database was left as it was, none of this start's migrations applied. ${copy} Fix the cause and start again, or start the previous release, which can use the database as it is`,
  );
}

function postgresFailure(name: string, err: unknown): StartupError {
  return new StartupError(
    'migration_failed',
    `migration ${name} failed (${causeOf(err)}): the database was left as it was (this start's migrations run in one transaction, which was rolled back). Back it up with pg_dump (pg_dump --format=custom --file=before-upgrade.dump "$DATABASE_URL") before trying again, fix the cause and start again, or start the previous release, which can use the database as it is`,
  );
}

/**
 * The copy of a SQLite database taken before its pending migrations run: VACUUM INTO in a worker thread
 * (backup-files.ts), owner-only, verified (integrity_check), then renamed into place, so a copy cut short
 * never has the final name. Into `dir` (BACKUP_DIR; made owner-only when made here) when set, else beside
 * the database. Named `qris-gateway-<database file>-before-<last applied>-to-<latest>-<UTC time>.sqlite`;
 * scheduled backups' pruning never removes it (it matches only their own names).
 */
async function backupBeforeMigrating(
  file: string,
  dir: string | null,
  from: string,
  to: string,
  now: number,
): Promise<string> {
  const folder = dir === null ? dirname(file) : resolve(dir);
  if (dir !== null) ensureOwnerOnlyDir(folder);
  const prefix = `qris-gateway-${basename(file)}-before-${from}-to-${to}-`;
  const current = currentCopy(folder, prefix, file);
  if (current !== null) return current;
  const name = `${prefix}${new Date(now).toISOString().replace(/[-:.]/g, '')}.sqlite`;
  const target = join(folder, name);
  const tmp = join(folder, `.${name}.${process.pid}.partial`);
  try {
    try {
      await copyDatabaseFile(file, tmp);
      await verifyDatabaseFile(tmp);
    } catch (err) {
      throw new StartupError(
        'migration_failed',
        `migrations ${from} to ${to} are pending, and the copy of the database to take first could not be written to ${folder} (${causeOf(err)}): nothing was migrated; free some space or set BACKUP_DIR to a folder that can take it`,
      );
    }
    renameSync(tmp, target);
    return target;
  } finally {
    rmSync(tmp, { force: true });
    rmSync(`${tmp}-journal`, { force: true });
  }
}

/**
 * The newest copy taken before the same migrations, when the database has not changed since it was
 * written: a start whose migration failed leaves the file as it was, and a restart policy (compose's
 * `unless-stopped`, systemd's `on-failure`) starts it again every few seconds; each start taking a copy
 * of its own would fill the disk with identical copies. Not reused when the database file is newer than
 * the copy (the previous release ran on it meanwhile) or its WAL holds anything: a new copy is taken.
 */
function currentCopy(folder: string, prefix: string, file: string): string | null {
  const database = statSync(file, { throwIfNoEntry: false });
  const wal = statSync(`${file}-wal`, { throwIfNoEntry: false });
  if (!database || (wal && wal.size > 0)) return null;
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.startsWith(prefix) && name.endsWith('.sqlite'));
  } catch {
    return null;
  }
  // The names end with the UTC time they were taken at: the last in order is the newest.
  const newest = names.sort().at(-1);
  if (newest === undefined) return null;
  const copy = statSync(join(folder, newest), { throwIfNoEntry: false });
  return copy && copy.size > 0 && copy.mtimeMs >= database.mtimeMs ? join(folder, newest) : null;
}
