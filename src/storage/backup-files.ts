// SQLite files for backup and restore: copying a database, checking a copy, and knowing whether a
// gateway has a database open. Raw better-sqlite3 on purpose: these work on files, not on the gateway's
// tables, and must not migrate or otherwise change what they look at. A copy holds every secret the
// database does, so each is written into a file made owner-only first (owner-only.ts).
import { createReadStream, createWriteStream, renameSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { createOwnerOnlyFile, makeOwnerOnly, OWNER_ONLY_FILE } from './owner-only.js';

/** Kysely's bookkeeping table: a file without it is not a qris-gateway database. */
const MIGRATIONS_TABLE = 'kysely_migration';

export type RowCounts = Record<string, number>;

export class NotAGatewayDatabase extends Error {}

/**
 * The copying and the checking run in a worker thread, with a connection of its own: a copy and an
 * integrity_check each read every page, a second or more on a database of a realistic size (70 MB for
 * 100 000 transactions), and a server's scheduled backup must not hold its event loop that long. Eval'd
 * source, as in engine/checkpointer.ts, so it runs the same under tsx and from dist/.
 *
 * The copy is `VACUUM INTO`. It is one read transaction: a snapshot of one moment that, in WAL mode,
 * never waits for the gateway's writes nor makes them wait, and it runs once. SQLite's backup API
 * (better-sqlite3's `backup()`) was measured on the server's own connection and set aside: its steps are
 * short, but its last step commits the whole copy on the event loop, a 136 ms stall for that 70 MB
 * database; and from any other connection it starts over at every commit of the gateway, which under a
 * steady write load may be never-ending.
 *
 * The check sets the copy's journal to DELETE (one self-contained file, whatever the source's mode),
 * runs integrity_check, and answers the problems found, the tables, and the rows of each.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let answer;
try {
  if (workerData.job === 'copy') {
    const db = new Database(workerData.source, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      db.prepare('VACUUM INTO ?').run(workerData.target);
    } finally {
      db.close();
    }
    answer = { copied: true };
  } else {
    const db = new Database(workerData.target, { fileMustExist: true });
    try {
      db.pragma('journal_mode = DELETE');
      const problems = db.pragma('integrity_check').map((row) => Object.values(row)[0]).filter((v) => v !== 'ok');
      const names = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all().map((r) => r.name);
      const rows = {};
      if (problems.length === 0) for (const name of names) rows[name] = Number(db.prepare('SELECT count(*) AS n FROM "' + name.replaceAll('"', '""') + '"').get().n);
      answer = { problems, names, rows };
    } finally {
      db.close();
    }
  }
} catch (err) {
  answer = { error: String(err && err.message ? err.message : err) };
}
parentPort.postMessage(answer);
`;

function inWorker<T>(data: {
  job: 'copy' | 'verify';
  source?: string;
  target: string;
}): Promise<T | { error: string }> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { ...data, driver } });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(new Error(`the ${data.job} of ${data.target} ended without an answer (exit ${code})`)),
    );
  });
}

/**
 * A consistent copy of the database at `source` into the new file `target`, owner-only (0600) and durable
 * on disk when it resolves. `target` is made empty and owner-only before the copy (VACUUM INTO takes an
 * empty file), since SQLite would make a new one 0644 under the usual umask.
 */
export async function copyDatabaseFile(source: string, target: string): Promise<void> {
  createOwnerOnlyFile(target);
  const answer = await inWorker<{ copied: true }>({ job: 'copy', source, target });
  if ('error' in answer) throw new Error(`copying ${source} failed: ${answer.error}`);
  // VACUUM INTO does not sync what it wrote; a backup is only a backup once it is on the disk.
  const file = await open(target, 'r+');
  try {
    await file.sync();
  } finally {
    await file.close();
  }
}

/**
 * A byte-for-byte copy of `source` into the new file `target`, owner-only (0600) whatever the source's
 * mode (copyFile would give it the source's), durable on disk when it resolves: restore's copy of a backup.
 */
export async function copyFileOwnerOnly(source: string, target: string): Promise<void> {
  // Made with 0600, which the umask can only narrow: never readable by others, then set to exactly 0600.
  await pipeline(createReadStream(source), createWriteStream(target, { flags: 'wx', mode: OWNER_ONLY_FILE }));
  const file = await open(target, 'r+');
  try {
    await file.chmod(OWNER_ONLY_FILE);
    await file.sync();
  } finally {
    await file.close();
  }
}

/**
 * Checks a copy before anyone relies on it: `PRAGMA integrity_check` must say ok and the migrations
 * table must be there. Returns the rows of every table; throws NotAGatewayDatabase otherwise.
 */
export async function verifyDatabaseFile(path: string): Promise<RowCounts> {
  const answer = await inWorker<{ problems: string[]; names: string[]; rows: RowCounts }>({
    job: 'verify',
    target: path,
  });
  if ('error' in answer) throw new NotAGatewayDatabase(`${path} is not a readable SQLite database: ${answer.error}`);
  if (answer.problems.length > 0)
    throw new NotAGatewayDatabase(`integrity_check of ${path} failed: ${answer.problems.slice(0, 5).join('; ')}`);
  if (!answer.names.includes(MIGRATIONS_TABLE))
    throw new NotAGatewayDatabase(`${path} is not a qris-gateway database (it has no ${MIGRATIONS_TABLE} table)`);
  return answer.rows;
}

/**
 * Whether any connection, in this process or another, has the database at `path` open; when none has,
 * its log is checkpointed into the file and the connection closed, which removes -wal and -shm, so the
 * file alone is then the whole database. How it knows: every connection to a WAL database holds a
 * shared lock on the file for as long as it is open, so an exclusive lock asked for without waiting fails
 * exactly while a gateway (or any other command) has it open. These are the operating system's locks,
 * released when the process ends however it ends, so unlike a pid file this cannot go stale after a
 * kill -9, nor be fooled by a recycled pid, and it sees every instance of a multi-instance setup.
 */
export function closeIfUnused(path: string): 'in_use' | 'closed' {
  const db = new BetterSqlite3(path, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    try {
      db.exec('BEGIN EXCLUSIVE');
      db.exec('COMMIT');
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'in_use';
      throw err;
    }
    db.pragma('wal_checkpoint(TRUNCATE)');
    return 'closed';
  } finally {
    db.close();
  }
}

/** What `backup --json` prints. */
export interface BackupReport {
  file: string;
  bytes: number;
  tables: RowCounts;
}

/**
 * Where a copy is made before it is checked: beside the final name (same folder, so the rename is atomic)
 * and under a name no backup has, so a backup cut short never leaves a half file under the final name.
 */
export function temporaryNameFor(file: string): string {
  return join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now()}.partial`);
}

/**
 * Puts a copy in place once it is verified: `make(tmp)` writes it, it is checked (integrity_check and the
 * migrations table), then renamed to `file`. Whatever fails, the temporary file is removed. The copy is
 * owner-only (0600): it holds every secret the database does. The rename puts the copy's own file in
 * `file`'s place, so a file replaced with --force does not keep its old mode.
 */
export async function verifiedCopy(file: string, make: (tmp: string) => Promise<void> | void): Promise<BackupReport> {
  const tmp = temporaryNameFor(file);
  try {
    await make(tmp);
    makeOwnerOnly(tmp);
    const tables = await verifyDatabaseFile(tmp);
    const bytes = statSync(tmp).size;
    renameSync(tmp, file);
    return { file, bytes, tables };
  } finally {
    rmSync(tmp, { force: true });
    rmSync(`${tmp}-journal`, { force: true });
  }
}
