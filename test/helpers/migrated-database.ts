import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDatabase } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';

// Every test context starts on a freshly migrated database. Running the migrations for each one cost about
// 0.1 s on SQLite and 0.8 s (plus 0.2 s to drop the schema) on PostgreSQL, where Kysely's migrator
// introspects the catalogue and sends some 90 statements: over the PostgreSQL pass of the suite that was
// minutes of a 2-core CI machine. A migrated database is the same whichever test made it, so:
// - SQLite: the migrations run once into a template file, and each context gets a copy of it;
// - PostgreSQL: a context's schema, once closed, is emptied (TRUNCATE) and renamed to a free name, and the
//   next context (in any test process) claims it by renaming it back; a new one is migrated only when
//   none is free.
// Both are keyed by a fingerprint of the migrations' sources, so an edited migration never meets a
// database made by the old one. Only createTestContext uses them: tests that spawn a gateway on an empty
// database still see the migrations run.

const STORAGE = fileURLToPath(new URL('../../src/storage/', import.meta.url));

let fingerprintMemo: string | undefined;
function migrationsFingerprint(): string {
  if (fingerprintMemo === undefined) {
    const hash = createHash('sha256').update(readFileSync(join(STORAGE, 'migrate.ts')));
    for (const name of readdirSync(join(STORAGE, 'migrations')).sort()) {
      hash.update(name).update(readFileSync(join(STORAGE, 'migrations', name)));
    }
    fingerprintMemo = hash.digest('hex').slice(0, 12);
  }
  return fingerprintMemo;
}

/** A migrated SQLite database at `file`: a copy of the template, made first if this is the first. */
export async function migratedSqliteFile(file: string): Promise<void> {
  const template = join(tmpdir(), `qg-migrated-${migrationsFingerprint()}.db`);
  if (!existsSync(template)) {
    // Made aside and renamed into place, so a test process running alongside never copies half of it.
    const dir = mkdtempSync(join(tmpdir(), 'qg-template-'));
    const made = join(dir, 'template.db');
    const database = openDatabase(`sqlite:${made}`);
    await migrateToLatest(database, 'sqlite');
    await database.close();
    // A clean close folds the write-ahead log into the file; a log left beside it would hold part of the
    // schema, so such a template is not used.
    if (existsSync(`${made}-wal`) && readFileSync(`${made}-wal`).length > 0)
      throw new Error('the migrated template kept a write-ahead log');
    renameSync(made, template);
    rmSync(dir, { recursive: true, force: true });
  }
  copyFileSync(template, file);
}

/** The schema name prefix of free (closed) migrated schemas of these migrations. */
const freePrefix = () => `qg_free_${migrationsFingerprint()}_`;

/**
 * A schema of its own in `base` with the latest migrations applied and no rows, selected through the
 * connection's search_path; `release` hands it back for the next context (or drops it if it cannot).
 */
export async function migratedPostgresSchema(base: string): Promise<{ url: string; release: () => Promise<void> }> {
  const schema = `qg_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  let claimed = false;
  try {
    for (let attempt = 0; attempt < 5 && !claimed; attempt++) {
      const { rows } = await admin.query<{ name: string }>(
        'select nspname as name from pg_namespace where starts_with(nspname, $1) order by random() limit 1',
        [freePrefix()],
      );
      const free = rows[0]?.name;
      if (free === undefined) break;
      try {
        // Emptied as it is claimed, in one transaction with the rename: whatever reached it after its
        // last test closed it is gone before the next test sees it.
        await admin.query('begin');
        await admin.query(`ALTER SCHEMA ${free} RENAME TO ${schema}`);
        // Only the tables holding rows: a TRUNCATE makes new files for a table and each of its indexes,
        // and most tests write to a few of the 26 tables.
        const tables = (
          await admin.query<{ name: string }>(
            "select tablename as name from pg_tables where schemaname = $1 and not starts_with(tablename, 'kysely_migration')",
            [schema],
          )
        ).rows.map((t) => `${schema}."${t.name}"`);
        const filled =
          tables.length === 0
            ? []
            : (
                await admin.query<{ name: string }>(
                  tables.map((t) => `select '${t}' as name where exists (select from ${t})`).join(' union all '),
                )
              ).rows;
        if (filled.length > 0)
          await admin.query(`TRUNCATE ${filled.map((t) => t.name).join(', ')} RESTART IDENTITY CASCADE`);
        await admin.query('commit');
        claimed = true;
      } catch (error) {
        await admin.query('rollback').catch(() => {});
        // Another test process claimed it first (it no longer exists under that name): try another.
        if ((error as { code?: string }).code !== '3F000') throw error;
      }
    }
    if (!claimed) await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  // Every connection made with this URL carries the schema's name, so that release can end any a test
  // left open: none may outlive its test into the schema's next use.
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  url.searchParams.set('application_name', schema);
  if (!claimed) {
    const database = openDatabase(url.toString());
    await migrateToLatest(database, 'postgres');
    await database.close();
  }
  return {
    url: url.toString(),
    release: async () => {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      try {
        await client.query(
          'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and pid <> pg_backend_pid()',
          [schema],
        );
        // A rename waits for the locks of transactions still ending; past the bound the schema is dropped
        // instead, as before there was reuse.
        await client.query("set lock_timeout = '5s'");
        try {
          await client.query(`ALTER SCHEMA ${schema} RENAME TO ${freePrefix()}${randomBytes(6).toString('hex')}`);
        } catch {
          await client.query('set lock_timeout = 0');
          await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        }
      } finally {
        await client.end();
      }
    },
  };
}
