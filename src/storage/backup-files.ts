// SQLite files for backup and restore: copying a database, checking a copy, and knowing whether a
// gateway has a database open. Raw better-sqlite3 on purpose: these work on files, not on the gateway's
// tables, and must not migrate or otherwise change what they look at.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

/** Kysely's bookkeeping table: a file without it is not a qris-gateway database. */
const MIGRATIONS_TABLE = 'kysely_migration';

/**
 * A consistent copy of the database at `source` into the new file `target`, by `VACUUM INTO` on a
 * connection of its own. Used by the `backup` command, a separate process from the gateway that serves the
 * file: the copy is one read transaction, so it is a snapshot of one moment and, in WAL mode, never waits
 * for the gateway's writes nor makes them wait. SQLite's backup API would restart from the first page
 * each time another connection writes, which under a steady write load may be never-ending; VACUUM INTO
 * runs once. It blocks this command's own event loop while it copies, which costs a CLI nothing. (The
 * server's scheduled backups use the backup API on the server's own connection instead: Database.backupTo.)
 */
export function copyDatabaseFile(source: string, target: string): void {
  const db = new BetterSqlite3(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('VACUUM INTO ?').run(target);
  } finally {
    db.close();
  }
}

export type RowCounts = Record<string, number>;

export class NotAGatewayDatabase extends Error {}

/**
 * The check of a copy, run in a worker thread: integrity_check reads every page, which on a database of
 * a realistic size takes a second or more, and a server's scheduled backup must not hold its event loop
 * that long. Eval'd source, as in engine/checkpointer.ts, so it runs the same under tsx and from dist/.
 * It sets the copy's journal to DELETE, so the copy is one self-contained file (a copy made by the backup
 * API carries the source's WAL flag), and answers the problems found or the rows of every table.
 */
const VERIFY_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let answer;
try {
  const db = new Database(workerData.path, { fileMustExist: true });
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
} catch (err) {
  answer = { error: String(err && err.message ? err.message : err) };
}
parentPort.postMessage(answer);
`;

type VerifyAnswer = { error: string } | { problems: string[]; names: string[]; rows: RowCounts };

/**
 * Checks a copy before anyone relies on it: `PRAGMA integrity_check` must say ok and the migrations
 * table must be there. Returns the rows of every table; throws NotAGatewayDatabase otherwise.
 */
export async function verifyDatabaseFile(path: string): Promise<RowCounts> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const answer = await new Promise<VerifyAnswer>((resolve, reject) => {
    const worker = new Worker(VERIFY_SOURCE, { eval: true, workerData: { path, driver } });
    worker.once('message', (m: VerifyAnswer) => resolve(m));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the check of ${path} ended without an answer (exit ${code})`)));
  });
  if ('error' in answer) throw new NotAGatewayDatabase(`${path} is not a readable SQLite database: ${answer.error}`);
  if (answer.problems.length > 0) throw new NotAGatewayDatabase(`integrity_check of ${path} failed: ${answer.problems.slice(0, 5).join('; ')}`);
  if (!answer.names.includes(MIGRATIONS_TABLE)) throw new NotAGatewayDatabase(`${path} is not a qris-gateway database (it has no ${MIGRATIONS_TABLE} table)`);
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
