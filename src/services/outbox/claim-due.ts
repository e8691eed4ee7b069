// Claiming due jobs of a queue. Several workers (in one process, or instances sharing a database) may
// run at once without a leader: a job is theirs only once a conditional update has set its lease
// (storage's leaseOutboxRow), and the lease doubles as the token that lets them record the outcome. A
// worker that dies mid-attempt leaves the lease to run out, and the job is attempted again: at least
// once, never lost.
import type { Executor } from '../../storage/executor.js';
import { leaseOutboxRow } from '../../storage/queries/outbox-jobs.js';
import type { Deps } from '../deps.js';
import type { Claimed, Job, OutboxQueue } from './queue.js';

export interface ClaimOptions {
  /** Jobs claimed at most. */
  limit: number;
  leaseMs: number;
  /** Only this job, if it is due and free. */
  only?: string;
  /** SQLite: candidates read to fill `limit` when others win some of them (limit × 3 unless said). */
  candidates?: number;
}

/** Claims up to `limit` due jobs of the queue for `leaseMs`; returns those this caller won. */
export async function claimDue<J extends Job>(
  deps: Deps,
  queue: OutboxQueue<J, never>,
  options: ClaimOptions,
): Promise<Claimed<J>[]> {
  const now = deps.now();
  const lease = now + options.leaseMs;
  const claim = async (db: Executor, rows: J[]) => {
    const won: Claimed<J>[] = [];
    for (const row of rows) {
      if (won.length === options.limit) break;
      // The same condition as the select, re-checked atomically: of two workers that both saw this
      // row free, only the first update matches.
      if (await leaseOutboxRow(db, queue.table, row.id, now, lease)) won.push({ ...row, lease });
    }
    return won;
  };
  const due = { now, only: options.only };
  if (deps.db.dialect === 'postgres') {
    // SKIP LOCKED lets concurrent workers pick disjoint rows instead of queueing on each other's.
    return deps.db.runInTransaction(async (trx) =>
      claim(trx, await queue.due(trx, { ...due, limit: options.limit, skipLocked: true })),
    );
  }
  // SQLite has one writer at a time; each claim is its own short statement (no read-then-write
  // transaction, which could fail with SQLITE_BUSY when another connection wrote in between). Extra
  // candidates let a worker that loses the first rows to another still fill its batch.
  return claim(deps.db, await queue.due(deps.db, { ...due, limit: options.candidates ?? options.limit * 3 }));
}
