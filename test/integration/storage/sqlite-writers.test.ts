// SQLite with a second writing process (the CLI paying or assigning while the server runs, an api and a
// worker on one file): a unit of work that reads before it writes must wait its turn, never fail.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../src/storage/database.js';
import { migrateToLatest } from '../../../src/storage/migrate.js';

let dir = '';
let database: Database | undefined;
afterEach(async () => {
  await database?.close();
  database = undefined;
  rmSync(dir, { recursive: true, force: true });
});

// The other process: commits a small write every millisecond or so until told to stop, as a plain
// better-sqlite3 connection with the gateway's busy timeout.
const OTHER_WRITER = `
const Database = require('better-sqlite3');
const db = new Database(process.argv[1]);
db.pragma('busy_timeout = 5000');
const insert = db.prepare("insert into audit_log (id, created_at, actor, action, subject_type, subject_id, details) values (?, ?, 'other', 'other.write', 'x', 'x', '{}')");
let n = 0;
const stop = Date.now() + Number(process.argv[2]);
process.stdout.write('ready\\n');
while (Date.now() < stop) { insert.run('other-' + n++, Date.now()); const until = Date.now() + 1; while (Date.now() < until); }
process.stdout.write(String(n) + '\\n');
`;

describe('SQLite with another process writing', () => {
  it('runs every read-then-write unit to its commit while the other process commits beside it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qg-writers-'));
    const file = join(dir, 'gateway.db');
    database = openDatabase(`sqlite:${file}`);
    await migrateToLatest(database, 'sqlite');
    const other = spawn(process.execPath, ['-e', OTHER_WRITER, file, '4000'], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    other.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    await new Promise<void>((resolve) => other.stdout.once('data', () => resolve()));
    const failures: string[] = [];
    let done = 0;
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline) {
      await database
        .runInTransaction(async (trx) => {
          // A read first: the transaction's snapshot is taken here, before its write.
          const { rows } = await sql<{ n: number }>`select count(*) as n from audit_log`.execute(trx);
          await new Promise((r) => setTimeout(r, 2));
          await sql`insert into audit_log (id, created_at, actor, action, subject_type, subject_id, details) values (${`own-${done}`}, ${Date.now()}, 'test', 'own.write', 'x', ${String(rows[0]!.n)}, '{}')`.execute(
            trx,
          );
        })
        .then(
          () => {
            done += 1;
          },
          (err: Error) => {
            failures.push(err.message);
          },
        );
    }
    await new Promise((resolve) => other.once('exit', resolve));
    expect(Number(out.split('\n')[1])).toBeGreaterThan(0);
    expect(failures).toEqual([]);
    expect(done).toBeGreaterThan(0);
    const { rows } = await sql<{ n: number }>`select count(*) as n from audit_log where actor = 'test'`.execute(
      database,
    );
    expect(rows[0]!.n).toBe(done);
  }, 30_000);
});

// better-sqlite3 throws where it fails, and Kysely's SQLite connection passes that on as a synchronous
// throw: the driver wrapper must classify it too, not only a rejected promise.
describe('SQLite refusing a lone statement', () => {
  it('a full database is storage_unavailable, not a raw SQLITE_FULL', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qg-full-'));
    database = openDatabase(`sqlite:${join(dir, 'gateway.db')}`);
    await migrateToLatest(database, 'sqlite');
    // The file may not grow past the pages it has: the next page it needs is a full disk to SQLite.
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(database);
    await sql.raw(`pragma max_page_count = ${rows[0]!.page_count}`).execute(database);
    const big = 'x'.repeat(200_000);
    const failure =
      await sql`insert into audit_log (id, created_at, actor, action, subject_type, subject_id, details) values ('big', ${Date.now()}, 'test', 'big.write', 'x', 'x', ${big})`
        .execute(database)
        .then(
          () => null,
          (err: unknown) => err,
        );
    expect(failure).toMatchObject({ code: 'storage_unavailable' });
    expect((failure as { cause?: { code?: string } }).cause?.code).toBe('SQLITE_FULL');
  });
});
