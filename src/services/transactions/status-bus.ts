import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Executor } from '../../storage/executor.js';
import { canNotify, listenForStatusNotifications, notifyStatus } from '../../storage/queries/status-notify.js';

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
      setImmediate(() => this.#local.emit(trxid));
    }
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
    return listenForStatusNotifications(databaseUrl, logger, (trxid) => this.#local.emit(trxid), onListening);
  }
}
