import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Executor } from '../../storage/executor.js';
import {
  canNotify,
  listenForStatusNotifications,
  notifyStatus,
  notifyStatuses,
} from '../../storage/queries/status-notify.js';

/** The local emitter's event for "some transaction changed" (a symbol, so no trxid can collide with it). */
const ANY = Symbol('any transaction');

/**
 * Tells live checkout pages that a transaction's status changed. Within one gateway an emitter
 * suffices; across instances on PostgreSQL the change is announced with NOTIFY inside the database
 * transaction that made it, so it is heard exactly when (and only if) it commits, by every instance.
 * On SQLite another process's announcement reaches no one here: the status watch (status-watch.ts)
 * notices its commits through PRAGMA data_version instead. NOTIFY and LISTEN: storage/queries/status-notify.ts.
 * One bus per gateway (deps.state.statusBus), so two gateways in one process hear only their own.
 */
export class StatusBus {
  readonly #local = new EventEmitter();

  constructor() {
    this.#local.setMaxListeners(0);
  }

  /** Announces a change of the transaction's status; call it inside the transaction that changes it. */
  async announce(db: Executor, trxid: string): Promise<void> {
    if (canNotify(db)) {
      await notifyStatus(db, trxid);
    } else {
      // SQLite has one writer per process here; readers woken now queue behind the commit.
      setImmediate(() => this.#emit(trxid));
    }
  }

  /** announce for several transactions, in one statement on PostgreSQL (a batch of payment reports). */
  async announceAll(db: Executor, trxids: readonly string[]): Promise<void> {
    if (trxids.length === 0) return;
    if (canNotify(db)) {
      await notifyStatuses(db, trxids);
    } else {
      setImmediate(() => {
        for (const trxid of trxids) this.#emit(trxid);
      });
    }
  }

  #emit(trxid: string): void {
    this.#local.emit(trxid);
    this.#local.emit(ANY, trxid);
  }

  /**
   * Calls fn whenever any transaction's status may have changed (the soundbox's payment watch), with its
   * id, or null when any may have (the PostgreSQL listener reconnected and may have missed some).
   */
  onAnyChange(fn: (trxid: string | null) => void): () => void {
    this.#local.on(ANY, fn);
    return () => void this.#local.off(ANY, fn);
  }

  /** Calls fn whenever trxid's status may have changed; returns the unsubscribe function. */
  onChange(trxid: string, fn: () => void): () => void {
    this.#local.on(trxid, fn);
    return () => void this.#local.off(trxid, fn);
  }

  /**
   * Forwards PostgreSQL notifications into this bus over one dedicated connection, reconnecting after
   * failures. `onListening` runs each time LISTEN is in place: notifications sent while the connection
   * was down are lost, so whoever depends on them reads afresh. Returns a stop function.
   */
  listen(databaseUrl: string, logger: Logger, onListening?: () => void): () => Promise<void> {
    // Once listening again, "anything may have changed" for whoever follows every transaction.
    const listening = (): void => {
      this.#local.emit(ANY, null);
      onListening?.();
    };
    return listenForStatusNotifications(databaseUrl, logger, (trxid) => this.#emit(trxid), listening);
  }
}
