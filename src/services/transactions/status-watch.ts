import { AppError } from '../../domain/errors.js';
import { effectiveStatus } from '../../domain/transaction.js';
import type { TransactionStatus, TransactionsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { transactionsById } from './transactions-by-id.js';

export interface StatusSnapshot {
  status: TransactionStatus;
  paid_late: boolean;
}

export type StatusListener = (snapshot: StatusSnapshot) => void;

export interface Watching {
  /** The status read just after the listener was registered: no change can fall between the two. */
  snapshot: StatusSnapshot;
  stop(): void;
}

/**
 * One per server process: tells open checkout pages when their transaction's status may have changed,
 * whichever process changed it, without a query per page.
 *
 * - Changes this process makes, and on PostgreSQL those of every process (NOTIFY), arrive on the status
 *   bus; each is followed by a read of that one transaction.
 * - On SQLite another process's commit reaches nobody's bus. Every `intervalMs` the watcher asks SQLite
 *   whether any other connection committed since it last asked (`PRAGMA data_version`, no rows read);
 *   only if so does it read the watched transactions again, all in one batched read.
 * - A watched transaction whose expiry has passed is read once more, so its page ends as expired (or
 *   paid, if a payment came first) without a timer per page.
 *
 * With nothing watched a tick does nothing at all. Listeners may hear the same status more than once.
 */
export interface StatusWatch {
  /** Calls listener whenever trxid's status may have changed; rejects with transaction_not_found. */
  watch(trxid: string, listener: StatusListener): Promise<Watching>;
  /** Reads every watched transaction again (the PostgreSQL listener reconnected and may have missed some). */
  refreshAll(): void;
  /** How many transactions are watched. */
  readonly size: number;
  /**
   * How many ticks have run to the end, a read they started included: a test waits for more of them to
   * show that nothing was read meanwhile, rather than waiting for some time.
   */
  readonly rounds: number;
  stop(): Promise<void>;
}

interface Entry {
  listeners: Set<StatusListener>;
  /** As of the last read; until the first read completes, never. */
  expiresAt: number;
  /** Whether a read at or after expiresAt has been delivered (only one such read is made on its behalf). */
  readAfterExpiry: boolean;
  stopBus: () => void;
}

export function startStatusWatch(deps: Deps, intervalMs: number): StatusWatch {
  const entries = new Map<string, Entry>();
  const reads = new Set<Promise<unknown>>();
  let seenVersion = deps.db.dataVersion();
  // A failed read may have carried a change: the next tick reads everything again.
  let failed = false;
  let stopped = false;
  let rounds = 0;

  const snapshotOf = (row: TransactionsTable, now: number): StatusSnapshot => ({
    status: effectiveStatus(row, now),
    paid_late: row.paid_late === 1,
  });

  const track = <T>(read: Promise<T>): Promise<T> => {
    reads.add(read);
    void read.finally(() => reads.delete(read)).catch(() => {});
    return read;
  };

  const deliver = (id: string, row: TransactionsTable, now: number): void => {
    const entry = entries.get(id);
    if (!entry) return;
    entry.expiresAt = row.expires_at;
    if (now >= row.expires_at) entry.readAfterExpiry = true;
    const snapshot = snapshotOf(row, now);
    for (const listener of [...entry.listeners]) listener(snapshot);
  };

  /** Reads the ids again and delivers what it finds; settles (never rejects) once that is done. */
  const refresh = (ids: string[]): Promise<void> | null => {
    if (ids.length === 0 || stopped) return null;
    return track(transactionsById(deps, ids)).then(
      (rows) => {
        if (stopped) return;
        const now = deps.now();
        for (const [id, row] of rows) deliver(id, row, now);
      },
      (err: unknown) => {
        failed = true;
        deps.logger.warn({ err }, 'status watch: reading watched transactions failed; reading them again next tick');
      },
    );
  };

  const tick = (): void => {
    const read = check();
    const done = (): void => {
      rounds += 1;
    };
    if (read) void read.finally(done);
    else done();
  };

  /** One tick's work; the read it started, if any. */
  const check = (): Promise<void> | null => {
    if (entries.size === 0 || stopped) return null;
    try {
      const version = deps.db.dataVersion();
      const changedElsewhere = version !== null && version !== seenVersion;
      seenVersion = version;
      if (changedElsewhere || failed) {
        failed = false;
        return refresh([...entries.keys()]);
      }
      const now = deps.now();
      const expired: string[] = [];
      for (const [id, entry] of entries) {
        if (!entry.readAfterExpiry && entry.expiresAt <= now) {
          entry.readAfterExpiry = true;
          expired.push(id);
        }
      }
      return refresh(expired);
    } catch (err) {
      failed = true;
      deps.logger.warn({ err }, 'status watch: checking for changes failed');
      return null;
    }
  };

  const timer = setInterval(tick, intervalMs);
  // A server stays up because it listens, not because of this timer.
  timer.unref();

  return {
    async watch(trxid, listener) {
      if (stopped) throw new Error('status watch: stopped');
      let entry = entries.get(trxid);
      if (!entry) {
        entry = {
          listeners: new Set(),
          expiresAt: Infinity,
          readAfterExpiry: false,
          stopBus: deps.state.statusBus.onChange(trxid, () => void refresh([trxid])),
        };
        entries.set(trxid, entry);
      }
      const mine = entry;
      mine.listeners.add(listener);
      const stop = (): void => {
        mine.listeners.delete(listener);
        if (mine.listeners.size === 0 && entries.get(trxid) === mine) {
          mine.stopBus();
          entries.delete(trxid);
        }
      };
      try {
        // Registered first, read second: a change committed before this read is in it, and one committed
        // after it is announced on the bus or shows in data_version at a later tick.
        const row = (await track(transactionsById(deps, [trxid]))).get(trxid);
        if (!row) throw new AppError('transaction_not_found', `no transaction ${trxid}`, { param: 'trxid' });
        const now = deps.now();
        mine.expiresAt = row.expires_at;
        return { snapshot: snapshotOf(row, now), stop };
      } catch (err) {
        stop();
        throw err;
      }
    },
    refreshAll() {
      void refresh([...entries.keys()]);
    },
    get size() {
      return entries.size;
    },
    get rounds() {
      return rounds;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      for (const entry of entries.values()) entry.stopBus();
      entries.clear();
      // The database closes after this: let reads in flight finish first.
      await Promise.allSettled([...reads]);
    },
  };
}
