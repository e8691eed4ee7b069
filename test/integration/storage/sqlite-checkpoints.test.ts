import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../src/storage/database.js';
import { migrateToLatest } from '../../../src/storage/migrate.js';
import { BACKSTOP_PAGES, startCheckpointer } from '../../../src/storage/engine/checkpointer.js';
import { onPostgres } from '../../helpers/context.js';

describe.skipIf(onPostgres)('SQLite checkpoints from a worker thread', () => {
  let dir: string;
  let database: Database | null = null;
  afterEach(async () => {
    await database?.close();
    database = null;
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(backgroundCheckpoints: boolean) {
    dir = mkdtempSync(join(tmpdir(), 'qg-ckpt-'));
    database = openDatabase(`sqlite:${join(dir, 'g.db')}`, { backgroundCheckpoints });
    await migrateToLatest(database, 'sqlite');
    // The log starts empty: the migrations' own frames (with 21 migrations, enough to bring SQLite's
    // 1000-page threshold within the 300 writes below) are not what the tests measure.
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(database);
    return database;
  }

  const fill = async (db: Database, n: number) => {
    for (let i = 0; i < n; i++) {
      await db
        .insertInto('reserved_totals')
        .values({
          merchant_id: 'mch_x',
          mode: 'test',
          total_amount: i,
          transaction_id: `trx_${'x'.repeat(100)}${i}`,
          reserved_until: 0,
        })
        .execute();
    }
  };
  // Read from the WAL index (the -shm file) without touching the log: mxFrame is the last valid frame
  // (header offset 16), nBackfill how many of them a checkpoint has copied into the database (offset
  // 96). Running a checkpoint from here to find out would do the worker's job and prove nothing.
  const walIndex = () => {
    const shm = readFileSync(join(dir, 'g.db-shm'));
    return { mxFrame: shm.readUInt32LE(16), nBackfill: shm.readUInt32LE(96) };
  };

  async function backfilledWithin(ms: number) {
    const deadline = Date.now() + ms;
    let w = walIndex();
    while (Date.now() < deadline && !(w.mxFrame > 0 && w.nBackfill === w.mxFrame)) {
      await new Promise((r) => setTimeout(r, 50));
      w = walIndex();
    }
    return w;
  }

  it('the worker copies the log into the database while the main connection only writes', async () => {
    const db = await open(true);
    const level = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
    expect(level.rows[0]!.wal_autocheckpoint).toBe(BACKSTOP_PAGES);
    await fill(db, 300);
    const w = await backfilledWithin(5000);
    // Not a frame count: a checkpoint that copied the whole log lets the next write start it again from
    // frame 1, so how many frames are left depends on how many writes came after the worker's last tick.
    // The main connection's threshold (BACKSTOP_PAGES) is far above these writes, so the copy is the worker's.
    expect(w.mxFrame).toBeGreaterThan(0);
    expect(w.nBackfill).toBe(w.mxFrame);
  });

  it("without the worker nothing copies the log until SQLite's own threshold", async () => {
    await open(false);
    await fill(database!, 300);
    // The one wait kept: what is shown is that no thread copies the log, and a thread that is not there
    // reports no rounds to wait for. 600 ms is three of the worker's 200 ms ticks; a slow machine can only
    // make this weaker, never make it fail.
    const w = await backfilledWithin(600);
    expect(w.mxFrame).toBeGreaterThan(300);
    expect(w.nBackfill).toBeLessThan(w.mxFrame);
  });

  it('without it (commands, tests) SQLite keeps its own automatic checkpoints', async () => {
    const db = await open(false);
    const level = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
    expect(level.rows[0]!.wal_autocheckpoint).toBe(1000);
  });

  it('stopping asks the worker to end, and it ends itself rather than being terminated', async () => {
    const db = await open(false);
    await fill(db, 50);
    const checkpointer = startCheckpointer(join(dir, 'g.db'), 20);
    // Resolved on the thread's exit event: code 0 is its own exit on the stop message; a thread that
    // ignored it would be terminated after 2 s, which Node reports as code 1.
    expect(await checkpointer.stop()).toBe(0);
    expect(await checkpointer.stop()).toBe(0);
  });

  it('closing stops the worker, and the file reopens intact', async () => {
    const db = await open(true);
    await fill(db, 50);
    await database!.close();
    database = null;
    database = openDatabase(`sqlite:${join(dir, 'g.db')}`);
    const n = (await sql<{ n: number }>`select count(*) as n from reserved_totals`.execute(database)).rows[0]!.n;
    expect(n).toBe(50);
  });
});
