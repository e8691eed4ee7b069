import type { Deps } from '../deps.js';

/**
 * One per server process: tells open soundboxes (issue 27, section 2) that a merchant's payments may
 * have changed, whichever process recorded them, without a query per soundbox per tick. It only says
 * "read again"; the soundbox reads its merchant's paid events after its own cursor, so a wake-up that
 * finds nothing costs one indexed read, and one that is missed is made up by the next.
 *
 * - Every status change this process makes, and on PostgreSQL every process's (NOTIFY), arrives on the
 *   status bus. Its payload is a transaction id, not a merchant, so every listener is woken.
 * - On SQLite another process's commit reaches no bus: every `intervalMs` the watch asks SQLite whether
 *   another connection committed (`PRAGMA data_version`, no rows read) and wakes every listener if so.
 * - `refreshAll` wakes every listener (the PostgreSQL listener reconnected and may have missed some).
 *
 * With no soundbox open, nothing is registered on the bus and a tick does nothing.
 */
export interface PaidWatch {
  /** Calls wake whenever payments may have been recorded; returns the unsubscribe function. */
  watch(wake: () => void): () => void;
  refreshAll(): void;
  readonly size: number;
  stop(): void;
}

export function startPaidWatch(deps: Deps, intervalMs: number): PaidWatch {
  const listeners = new Set<() => void>();
  let stopBus: (() => void) | null = null;
  let seenVersion = deps.db.dataVersion();

  const wakeAll = (): void => {
    for (const wake of [...listeners]) wake();
  };

  const tick = (): void => {
    if (listeners.size === 0) return;
    try {
      const version = deps.db.dataVersion();
      const changed = version !== null && version !== seenVersion;
      seenVersion = version;
      if (changed) wakeAll();
    } catch (err) {
      deps.logger.warn({ err }, 'paid watch: checking for changes failed; waking every soundbox');
      wakeAll();
    }
  };
  const timer = setInterval(tick, intervalMs);
  // A server stays up because it listens, not because of this timer.
  timer.unref();

  return {
    watch(wake) {
      if (listeners.size === 0) {
        // Commits before now are in the soundbox's first read; only later ones need to show here.
        seenVersion = deps.db.dataVersion();
        stopBus = deps.state.statusBus.onAnyChange(wakeAll);
      }
      listeners.add(wake);
      return () => {
        listeners.delete(wake);
        if (listeners.size === 0 && stopBus) {
          stopBus();
          stopBus = null;
        }
      };
    },
    refreshAll: wakeAll,
    get size() {
      return listeners.size;
    },
    stop() {
      clearInterval(timer);
      listeners.clear();
      stopBus?.();
      stopBus = null;
    },
  };
}
