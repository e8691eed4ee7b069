import { sql, type ControlledTransaction, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../schema.js';
import type { WalSync } from './wal-sync.js';
import { unavailableError } from '../unavailable.js';
import { isAppError } from '../../domain/errors.js';

/**
 * Group commit. On SQLite every commit is an fsync (synchronous=FULL) and there is one connection, so
 * one transaction per request caps creates at the disk's fsync rate. Units of work that arrive in the
 * same event-loop turn are instead run one after another inside ONE transaction, each in a savepoint of
 * its own, and committed together: one fsync for the batch.
 *
 * - A unit that throws is rolled back to its savepoint; only its caller sees the error.
 * - Every caller is answered only after the commit that holds its rows (failures too, so a caller that
 *   re-reads after an error, like create-transaction's LostRace path, sees the batch-mate that won).
 * - If the commit (or a savepoint command) fails, every caller of the batch gets that error: never a
 *   success for rows that are not on disk.
 * - The commit itself does not wait for the disk on the event loop: the log is flushed on the thread
 *   pool afterwards, and callers are answered only when that is done (wal-sync.ts).
 * - Units run strictly one at a time (savepoints are a stack), so a later unit reads what earlier units
 *   of the same batch wrote.
 *
 * On PostgreSQL the pool already runs transactions in parallel, so each unit simply gets its own.
 *
 * A unit must use only the transaction it is given: a query through deps.db, or a nested
 * runInTransaction, would wait for the connection the batch holds.
 */
export type UnitOfWork<T> = (trx: Transaction<DB>) => Promise<T>;

/** Bounds the work (and the latency) one commit carries; the rest goes into the next batch. */
export const MAX_BATCH = 256;

interface Unit {
  fn: UnitOfWork<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Counters for /metrics. */
export interface BatchStats {
  commits: number;
  units: number;
}

/**
 * The start and the end of a spell in which commits fail because the disk cannot take them (full, a
 * file-size limit, an I/O error): told once each way, so the server logs the outage twice, not once per
 * refused request.
 */
export type WriteOutageEvent = { state: 'started'; err: unknown } | { state: 'ended'; refused: number; ms: number };

/**
 * The batcher of one SQLite database, owned by its Database object (database.ts), which is the only
 * caller: services reach it through `db.runInTransaction`.
 */
export class GroupCommit {
  private queue: Unit[] = [];
  private scheduled = false;
  /** Units queued or in a batch not yet answered. */
  private pending = 0;
  /** Called when pending drops to zero (see settled). */
  private onSettled: Array<() => void> = [];
  private readonly counts: BatchStats = { commits: 0, units: 0 };
  /** While commits fail for storage: since when, and how many units were refused. */
  private outage: { since: number; refused: number } | null = null;
  /** Told of each outage's start and end (database.ts's onWriteOutage). */
  onOutage: ((event: WriteOutageEvent) => void) | null = null;

  /**
   * @param db the database's own instance, used only for `connection()`: one connection per batch.
   * @param wal the log flusher of a file-backed database; null for :memory:.
   */
  constructor(
    private readonly db: Kysely<DB>,
    private readonly wal: WalSync | null,
  ) {}

  get stats(): BatchStats {
    return { ...this.counts };
  }

  run<T>(fn: UnitOfWork<T>): Promise<T> {
    this.pending += 1;
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  /**
   * Resolves once no unit is queued or in a batch: each has been committed (or has failed) and answered.
   * The database is closed only then, or a batch still waiting for its turn would find the connection gone.
   */
  settled(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.onSettled.push(resolve));
  }

  private answered(count: number): void {
    this.pending -= count;
    if (this.pending > 0) return;
    for (const wake of this.onSettled.splice(0)) wake();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate runs after the I/O callbacks of this turn, so every request parsed in it joins.
    setImmediate(() => this.start());
  }

  private start(): void {
    // While the previous batch's log flush runs, this batch could not be acknowledged before a second
    // flush anyway: it waits for the first and takes everything that arrived meanwhile. Fewer, larger
    // commits write fewer log frames (each commit rewrites the pages it touched); the wait adds only the
    // commit itself, since its answer had to wait for the running flush and one more anyway.
    if (this.wal?.busy) {
      void this.wal.settled().then(() => this.start());
      return;
    }
    this.scheduled = false;
    const units = this.queue.splice(0, MAX_BATCH);
    if (this.queue.length > 0) this.schedule();
    void this.runBatch(units);
  }

  private async runBatch(units: Unit[]): Promise<void> {
    const wal = this.wal;
    let outcomes: Outcome[];
    let committed = false;
    try {
      // One connection for the whole batch: the synchronous switch must sit right around BEGIN and COMMIT
      // with no other statement of this connection in between (SQLite refuses to change it inside a
      // transaction, and a stray autocommit write in between would commit unsynced).
      outcomes = await this.db.connection().execute(async (conn) => {
        if (wal) await SYNC_NORMAL.execute(conn);
        try {
          return await runUnits(conn, this.counts, units);
        } finally {
          if (wal) await SYNC_FULL.execute(conn);
        }
      });
      committed = true;
      // Nobody is answered before the batch's log frames are on disk.
      if (wal) await wal.sync();
    } catch (err) {
      // The log's flush fails after the commit, outside any query (an fsync's ENOSPC or EIO): the rows
      // are committed but maybe not on disk, so the answer says the outcome is in doubt.
      const failure = unavailableError(err, { inDoubt: committed }) ?? err;
      if (isAppError(failure) && failure.code === 'storage_unavailable') this.noteOutage(failure, units.length);
      for (const u of units) u.reject(failure);
      this.answered(units.length);
      return;
    }
    if (this.outage) {
      const { since, refused } = this.outage;
      this.outage = null;
      this.onOutage?.({ state: 'ended', refused, ms: Date.now() - since });
    }
    units.forEach((u, i) => {
      const o = outcomes[i]!;
      if (o.ok) u.resolve(o.value);
      else u.reject(o.error);
    });
    this.answered(units.length);
  }

  private noteOutage(err: unknown, units: number): void {
    if (this.outage) {
      this.outage.refused += units;
      return;
    }
    this.outage = { since: Date.now(), refused: units };
    this.onOutage?.({ state: 'started', err });
  }
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

const SYNC_NORMAL = sql`pragma synchronous = NORMAL`;
const SYNC_FULL = sql`pragma synchronous = FULL`;

/** The batch's transaction: every unit in a savepoint, then one commit. Throws if the batch broke. */
async function runUnits(conn: Kysely<DB>, counts: BatchStats, units: Unit[]): Promise<Outcome[]> {
  const trx = await conn.startTransaction().execute();
  const outcomes: Outcome[] = [];
  let broken: unknown = null;
  for (let i = 0; i < units.length && broken === null; i++) {
    // One name serves every unit: each savepoint is released before the next one opens, and a fixed
    // string keeps the three savepoint statements in the prepared-statement cache.
    const result = await runUnit(trx, 'unit', units[i]!.fn);
    if ('broken' in result) broken = result.broken;
    else outcomes.push(result);
  }
  if (broken === null) {
    try {
      await trx.commit().execute();
      counts.commits += 1;
      counts.units += units.length;
      return outcomes;
    } catch (err) {
      broken = err;
    }
  }
  // A failed commit leaves the transaction open; rollback ends it (and may itself fail harmlessly).
  if (!trx.isCommitted && !trx.isRolledBack)
    await trx
      .rollback()
      .execute()
      .catch(() => {});
  throw broken;
}

/** One unit in its savepoint. `broken` means the shared transaction itself can no longer be trusted. */
async function runUnit(
  trx: ControlledTransaction<DB>,
  name: string,
  fn: UnitOfWork<unknown>,
): Promise<Outcome | { broken: unknown }> {
  let sp: ControlledTransaction<DB, [string]>;
  try {
    sp = await trx.savepoint(name).execute();
  } catch (err) {
    return { broken: err };
  }
  let outcome: Outcome;
  try {
    outcome = { ok: true, value: await fn(trx) };
  } catch (error) {
    outcome = { ok: false, error };
    try {
      await sp.rollbackToSavepoint(name).execute();
    } catch (err) {
      // SQLite rolls a whole transaction back on some errors (disk full, I/O): nothing left to keep.
      return { broken: err };
    }
  }
  try {
    await sp.releaseSavepoint(name).execute();
  } catch (err) {
    return { broken: err };
  }
  return outcome;
}
