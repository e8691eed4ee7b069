// Upgrades that cannot lose data (issue 38, section 4): pending migrations run in one transaction (on
// PostgreSQL under an advisory lock of the schema, so instances starting together migrate once); on
// SQLite a copy of an existing database is written first, named for the migrations; a failed migration
// leaves the database as it was and the start refuses, naming the copy; a database a newer release
// migrated is refused, untouched.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { sql, type Migration } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.js';
import { AppError } from '../../../src/domain/errors.js';
import { openDatabase } from '../../../src/storage/database.js';
import { lockKeyOf, MIGRATIONS, type MigrationReport, migrateToLatest } from '../../../src/storage/migrate.js';
import { StartupError } from '../../../src/startup-error.js';
import { freshDatabaseUrl, onPostgres } from '../../helpers/context.js';
import { runCommand } from '../../helpers/processes.js';

const NAMES = Object.keys(MIGRATIONS).sort();
const LATEST = NAMES.at(-1)!;

/** The first `count` migrations of this build: a database as an older release left it. */
function firstMigrations(count: number): Record<string, Migration> {
  return Object.fromEntries(NAMES.slice(0, count).map((name) => [name, MIGRATIONS[name]!]));
}

/** The real list plus one that fails: the run's earlier migrations must not survive it. */
const withFailing: Record<string, Migration> = {
  ...MIGRATIONS,
  '999-fails': {
    up: async () => {
      throw new Error('deliberate failure');
    },
  },
};

/** Everything a SQLite file holds: its schema and every row of every table, in order. */
function sqliteDump(file: string): { schema: unknown[]; rows: Record<string, unknown[]> } {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    const schema = db
      .prepare("select type, name, sql from sqlite_schema where name not like 'sqlite_%' order by type, name")
      .all();
    const rows: Record<string, unknown[]> = {};
    for (const { name } of db
      .prepare("select name from sqlite_schema where type = 'table' and name not like 'sqlite_%' order by name")
      .all() as {
      name: string;
    }[]) {
      rows[name] = db.prepare(`select * from "${name}" order by 1`).all();
    }
    return { schema, rows };
  } finally {
    db.close();
  }
}

function appliedIn(file: string): string[] {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('select name from kysely_migration order by name').all() as { name: string }[]).map(
      (r) => r.name,
    );
  } finally {
    db.close();
  }
}

async function migrateFile(file: string, migrations: Record<string, Migration>): Promise<void> {
  const db = openDatabase(`sqlite:${file}`);
  try {
    await migrateToLatest(db, 'sqlite', { migrations });
  } finally {
    await db.close();
  }
}

async function cliInProcess(
  argv: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    argv,
    { out: (t) => void out.push(t), err: (t) => void err.push(t) },
    { ...env, ENV_FILE: '' },
    { envFileDir: null },
  );
  return { code, stdout: out.join(''), stderr: err.join('') };
}

describe('SQLite upgrades', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qg-upgrade-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const newCase = () => {
    const caseDir = join(dir, `case-${++n}`);
    mkdirSync(caseDir);
    return { caseDir, file: join(caseDir, 'gateway.db') };
  };

  it('a pending migration on an existing database: a copy named for the versions goes to BACKUP_DIR first', async () => {
    const { caseDir, file } = newCase();
    await migrateFile(file, firstMigrations(NAMES.length - 2));
    const before = sqliteDump(file);
    const backups = join(caseDir, 'backups');
    const db = openDatabase(`sqlite:${file}`);
    let report: MigrationReport | undefined;
    try {
      report = await migrateToLatest(db, 'sqlite', {
        backupDir: backups,
        now: () => Date.UTC(2026, 10, 29, 4, 5, 6, 7),
      });
    } finally {
      await db.close();
    }
    const expected = join(
      backups,
      `qris-gateway-gateway.db-before-${NAMES.at(-3)}-to-${LATEST}-20261129T040506007Z.sqlite`,
    );
    expect(report).toEqual({ applied: NAMES.slice(-2), backup: expected });
    expect(readdirSync(backups)).toEqual([basename(expected)]);
    // Owner-only: it holds every secret the database does.
    expect(statSync(expected).mode & 0o777).toBe(0o600);
    // The copy opens and is the database as it was; the live file is migrated.
    expect(sqliteDump(expected)).toEqual(before);
    expect(appliedIn(expected)).toEqual(NAMES.slice(0, -2));
    expect(appliedIn(file)).toEqual(NAMES);
  });

  it('without BACKUP_DIR the copy goes beside the database; a new file and an up-to-date one get none', async () => {
    const { caseDir, file } = newCase();
    await migrateFile(file, firstMigrations(NAMES.length - 1));
    expect(readdirSync(caseDir).filter((f) => f.endsWith('.sqlite'))).toEqual([]);
    const db = openDatabase(`sqlite:${file}`);
    try {
      const report = await migrateToLatest(db, 'sqlite');
      expect(report.backup).not.toBeNull();
      expect(
        report.backup!.startsWith(join(caseDir, `qris-gateway-gateway.db-before-${NAMES.at(-2)}-to-${LATEST}-`)),
      ).toBe(true);
      expect(await migrateToLatest(db, 'sqlite')).toEqual({ applied: [], backup: null });
    } finally {
      await db.close();
    }
    const fresh = newCase();
    const db2 = openDatabase(`sqlite:${fresh.file}`);
    try {
      expect(await migrateToLatest(db2, 'sqlite')).toEqual({ applied: NAMES, backup: null });
    } finally {
      await db2.close();
    }
    expect(readdirSync(fresh.caseDir).filter((f) => f.endsWith('.sqlite'))).toEqual([]);
  });

  it('migrate says what it applied and where the copy is', async () => {
    const { caseDir, file } = newCase();
    await migrateFile(file, firstMigrations(NAMES.length - 1));
    const run = await cliInProcess(['migrate'], { DATABASE_URL: `sqlite:${file}` });
    expect(run.code).toBe(0);
    const [backup] = readdirSync(caseDir).filter((f) => f.endsWith('.sqlite'));
    expect(run.stdout).toBe(
      `applied 1 migration: ${LATEST}\nthe database as it was before them is copied to ${join(caseDir, backup!)}\ndatabase is up to date (sqlite:${file})\n`,
    );
    expect(JSON.parse((await cliInProcess(['migrate', '--json'], { DATABASE_URL: `sqlite:${file}` })).stdout)).toEqual({
      migrated: true,
      database: `sqlite:${file}`,
      applied: [],
      backup: null,
    });
  });

  it('a failing migration leaves the file as it was, keeps the copy and says where it is', async () => {
    const { caseDir, file } = newCase();
    await migrateFile(file, firstMigrations(NAMES.length - 3));
    const before = sqliteDump(file);
    const db = openDatabase(`sqlite:${file}`);
    let error: unknown;
    try {
      await migrateToLatest(db, 'sqlite', { migrations: withFailing }).catch((err: unknown) => (error = err));
    } finally {
      await db.close();
    }
    expect(error).toBeInstanceOf(StartupError);
    expect((error as StartupError).code).toBe('migration_failed');
    const [backup] = readdirSync(caseDir).filter((f) => f.endsWith('.sqlite'));
    expect(backup).toBeDefined();
    expect((error as Error).message).toContain(join(caseDir, backup!));
    expect((error as Error).message).toContain('999-fails');
    expect(sqliteDump(file)).toEqual(before);
    expect(sqliteDump(join(caseDir, backup!))).toEqual(before);

    // Started again on the file as it was: the same copy is named, no second one taken.
    const again = async () => {
      const db2 = openDatabase(`sqlite:${file}`);
      try {
        return await migrateToLatest(db2, 'sqlite', { migrations: withFailing }).then(
          () => null,
          (err: Error) => err,
        );
      } finally {
        await db2.close();
      }
    };
    expect((await again())?.message).toContain(join(caseDir, backup!));
    expect(readdirSync(caseDir).filter((f) => f.endsWith('.sqlite'))).toEqual([backup]);
    // Changed since (the previous release ran on it meanwhile): a new copy, of the file as it is now.
    const raw = new BetterSqlite3(file);
    raw.exec('create table written_meanwhile (x integer)');
    raw.close();
    const changed = sqliteDump(file);
    const third = await again();
    const copies = readdirSync(caseDir)
      .filter((f) => f.endsWith('.sqlite'))
      .sort();
    expect(copies).toHaveLength(2);
    const newest = copies.find((f) => f !== backup)!;
    expect(third?.message).toContain(join(caseDir, newest));
    expect(sqliteDump(join(caseDir, newest))).toEqual(changed);
  });

  it('the real CLI refuses to start when a migration fails: exit 1, the backup named, the file unchanged', async () => {
    const { caseDir, file } = newCase();
    // Up to the one before the last, then by hand the column the last one adds: it fails on it.
    expect(LATEST).toBe('023-source-names');
    await migrateFile(file, firstMigrations(NAMES.length - 1));
    const raw = new BetterSqlite3(file);
    raw.exec('alter table payment_sources add column name text');
    raw.close();
    const before = sqliteDump(file);
    const backups = join(caseDir, 'backups');
    const run = await runCommand(['migrate'], { DATABASE_URL: `sqlite:${file}`, BACKUP_DIR: backups }, 180_000);
    expect(run.code).toBe(1);
    const kept = readdirSync(backups);
    expect(kept).toHaveLength(1);
    const backup = join(backups, kept[0]!);
    expect(run.stderr).toContain('error: migration_failed: ');
    expect(run.stderr).toContain(`migration ${LATEST} failed`);
    expect(run.stderr).toContain(backup);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(sqliteDump(file)).toEqual(before);
    expect(appliedIn(backup)).toEqual(NAMES.slice(0, -1));
    // serve refuses the same way.
    const served = await runCommand(
      ['serve'],
      { DATABASE_URL: `sqlite:${file}`, BACKUP_DIR: backups, PORT: '0' },
      180_000,
    );
    expect(served.code).toBe(1);
    expect(served.stderr).toContain('error: migration_failed: ');
    expect(sqliteDump(file)).toEqual(before);
    // Started again on the unchanged file (a restart policy's loop), it names the copy it has, and takes no other.
    expect(served.stderr).toContain(backup);
    expect(readdirSync(backups)).toEqual(kept);
  }, 240_000);

  it('a start waits for another process migrating the same file past the 5 s busy timeout', async () => {
    const { file } = newCase();
    await migrateFile(file, firstMigrations(NAMES.length - 1));
    // Another process holds the write lock for 7 s, as one copying a large database before migrating it.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))}))(${JSON.stringify(file)});
         db.exec('begin immediate'); process.stdout.write('locked\\n');
         setTimeout(() => { db.exec('commit'); db.close(); }, 7000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const ended = new Promise((resolve) => holder.on('close', resolve));
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    const db = openDatabase(`sqlite:${file}`);
    try {
      expect((await migrateToLatest(db, 'sqlite')).applied).toEqual([LATEST]);
    } finally {
      await db.close();
      await ended;
    }
    expect(appliedIn(file)).toEqual(NAMES);
  }, 60_000);

  it('a database a newer release migrated is refused, untouched, with no copy', async () => {
    const { caseDir, file } = newCase();
    await migrateFile(file, MIGRATIONS);
    const raw = new BetterSqlite3(file);
    raw
      .prepare('insert into kysely_migration (name, timestamp) values (?, ?)')
      .run('999-future', new Date().toISOString());
    raw.close();
    const before = sqliteDump(file);
    const run = await cliInProcess(['migrate'], {
      DATABASE_URL: `sqlite:${file}`,
      BACKUP_DIR: join(caseDir, 'backups'),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `error: database_too_new: this database was last migrated by a newer qris-gateway (it has migration 999-future, this release knows up to ${LATEST}): start the newer release, or restore a backup made before the upgrade\n`,
    );
    expect(sqliteDump(file)).toEqual(before);
    expect(existsSync(join(caseDir, 'backups'))).toBe(false);
    // Also with migrations pending (a newer release's database this one is behind on in other ways).
    const db = openDatabase(`sqlite:${file}`);
    try {
      const error = await migrateToLatest(db, 'sqlite', {
        migrations: { ...MIGRATIONS, '024-not-yet': { up: async () => {} } },
      }).catch((e: unknown) => e);
      expect((error as StartupError).code).toBe('database_too_new');
    } finally {
      await db.close();
    }
    expect(sqliteDump(file)).toEqual(before);
  });
});

/** Everything of a PostgreSQL schema that a migration changes: its tables with their columns, and the migrations table. */
async function schemaDump(url: string): Promise<{ columns: unknown[]; applied: string[] }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const columns = (
      await client.query(
        'select table_name, column_name, data_type from information_schema.columns where table_schema = current_schema() order by table_name, column_name',
      )
    ).rows;
    const present = (
      await client.query("select to_regclass(quote_ident(current_schema()) || '.kysely_migration') is not null as p")
    ).rows[0].p;
    const applied = present
      ? (await client.query('select name from kysely_migration order by name')).rows.map(
          (r: { name: string }) => r.name,
        )
      : [];
    return { columns, applied };
  } finally {
    await client.end();
  }
}

describe.skipIf(!onPostgres)('PostgreSQL upgrades', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qg-upgrade-pg-'));
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of drops) await drop();
    rmSync(dir, { recursive: true, force: true });
  });
  async function freshSchema(): Promise<string> {
    const fresh = await freshDatabaseUrl(dir);
    drops.push(fresh.drop);
    return fresh.url;
  }
  async function migrateSchema(url: string, migrations: Record<string, Migration>) {
    const db = openDatabase(url);
    try {
      return await migrateToLatest(db, 'postgres', { migrations });
    } finally {
      await db.close();
    }
  }

  it('six pools migrating one new schema at once: one applies, all succeed, each migration listed once', async () => {
    for (let round = 0; round < 3; round++) {
      const url = await freshSchema();
      const dbs = Array.from({ length: 6 }, () => openDatabase(url));
      try {
        const reports = await Promise.all(dbs.map((db) => migrateToLatest(db, 'postgres')));
        expect(reports.filter((r) => r.applied.length > 0).map((r) => r.applied)).toEqual([NAMES]);
      } finally {
        await Promise.all(dbs.map((db) => db.close()));
      }
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const names = (await client.query('select name from kysely_migration')).rows.map((r: { name: string }) => r.name);
      await client.end();
      expect(names.sort()).toEqual(NAMES);
    }
  }, 120_000);

  it('waiting for another instance to finish migrating is not ended by DATABASE_QUERY_TIMEOUT_MS', async () => {
    const url = await freshSchema();
    const schema = new URL(url).searchParams.get('options')!.replace('-c search_path=', '');
    // Another instance migrating: it holds the schema's migration lock for three times the timeout.
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    await other.query('begin');
    await other.query(`select pg_advisory_xact_lock(${lockKeyOf(schema)}::bigint)`);
    const released = new Promise((resolve) => setTimeout(resolve, 1500))
      .then(() => other.query('commit'))
      .finally(() => other.end());
    const db = openDatabase(url, { queryTimeoutMs: 500 });
    try {
      expect(await migrateToLatest(db, 'postgres')).toEqual({ applied: NAMES, backup: null });
      await released;
      // The timeout is back once migrated.
      const slow = await sql`select pg_sleep(5)`.execute(db).catch((err: unknown) => err);
      expect((slow as AppError).code).toBe('database_unavailable');
      expect(slow).toBeInstanceOf(AppError);
    } finally {
      await db.close();
    }
  }, 60_000);

  it('a failing migration rolls back the whole run: a new schema stays empty, an older one as it was', async () => {
    const url = await freshSchema();
    const error = await migrateSchema(url, withFailing).catch((e: unknown) => e);
    expect((error as StartupError).code).toBe('migration_failed');
    expect((error as Error).message).toContain('999-fails');
    expect((error as Error).message).toContain('pg_dump');
    expect(await schemaDump(url)).toEqual({ columns: [], applied: [] });

    const older = await freshSchema();
    await migrateSchema(older, firstMigrations(NAMES.length - 3));
    const before = await schemaDump(older);
    expect(before.applied).toEqual(NAMES.slice(0, -3));
    const again = await migrateSchema(older, withFailing).catch((e: unknown) => e);
    expect((again as StartupError).code).toBe('migration_failed');
    expect(await schemaDump(older)).toEqual(before);
  }, 60_000);

  it('the real CLI refuses to start when a migration fails: exit 1, the schema as it was, pg_dump named', async () => {
    const url = await freshSchema();
    await migrateSchema(url, firstMigrations(NAMES.length - 1));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('alter table payment_sources add column name text');
    await client.end();
    const before = await schemaDump(url);
    const run = await runCommand(['migrate'], { DATABASE_URL: url }, 180_000);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: migration_failed: ');
    expect(run.stderr).toContain(`migration ${LATEST} failed`);
    expect(run.stderr).toContain('left as it was');
    expect(run.stderr).toContain('pg_dump');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(await schemaDump(url)).toEqual(before);
  }, 240_000);

  it('a schema a newer release migrated is refused, untouched', async () => {
    const url = await freshSchema();
    await migrateSchema(url, MIGRATIONS);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('insert into kysely_migration (name, timestamp) values ($1, $2)', [
      '999-future',
      new Date().toISOString(),
    ]);
    await client.end();
    const before = await schemaDump(url);
    const run = await cliInProcess(['migrate'], { DATABASE_URL: url });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `error: database_too_new: this database was last migrated by a newer qris-gateway (it has migration 999-future, this release knows up to ${LATEST}): start the newer release, or restore a backup made before the upgrade\n`,
    );
    expect(await schemaDump(url)).toEqual(before);
  });
});
