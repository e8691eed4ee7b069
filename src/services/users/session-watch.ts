import { standingSessionsAmong } from '../../storage/queries/sessions.js';
import type { Deps } from '../deps.js';

/**
 * One per server process: ends what a console session holds open (the soundbox's stream) soon after the
 * session itself ends, however it ends and whichever process ended it: a logout, a password change, the
 * user disabled or its account deleted (issue 35, finding 5). Every `intervalMs` it reads which of the
 * watched sessions still stand, in one statement for all of them (by primary key, 500 at a time), and
 * calls `ended` for each that does not. It reads the database, not a bus, so every instance notices a
 * change made by any other, on SQLite and PostgreSQL alike. With nothing watched, a tick does nothing.
 *
 * A check that fails ends every watched stream too: one that cannot show its session still stands does
 * not go on. A page reconnects and resumes after its last event, so nothing is lost by it.
 */
export interface SessionWatch {
  /** Calls `ended` once the session (a Viewer's sessionKey) no longer stands; returns the unwatch function. */
  watch(sessionKey: string, ended: () => void): () => void;
  /** Runs one check now (the timer's tick); resolves when its `ended` calls are made. */
  check(): Promise<void>;
  readonly size: number;
  stop(): void;
}

export function startSessionWatch(deps: Deps, intervalMs: number): SessionWatch {
  const watchers = new Map<string, Set<() => void>>();
  let checking: Promise<void> | null = null;

  const endOf = (keys: Iterable<string>): void => {
    for (const key of [...keys]) {
      const ended = watchers.get(key);
      watchers.delete(key);
      if (!ended) continue;
      for (const end of ended) end();
    }
  };

  const run = async (): Promise<void> => {
    const keys = [...watchers.keys()];
    if (keys.length === 0) return;
    let standing: Set<string>;
    try {
      standing = await standingSessionsAmong(deps.db, keys, deps.now());
    } catch (err) {
      deps.logger.warn({ err }, 'session watch: checking the open streams’ sessions failed; ending those streams');
      endOf(keys);
      return;
    }
    endOf(keys.filter((key) => !standing.has(key)));
  };

  // A slow check is not run twice at once: a tick that finds one running waits for it instead.
  const check = (): Promise<void> => {
    checking ??= run().finally(() => {
      checking = null;
    });
    return checking;
  };
  const timer = setInterval(() => void check(), intervalMs);
  // A server stays up because it listens, not because of this timer.
  timer.unref();

  return {
    watch(sessionKey, ended) {
      let set = watchers.get(sessionKey);
      if (!set) {
        set = new Set();
        watchers.set(sessionKey, set);
      }
      // Each watch is its own entry, even for the same function.
      const entry = () => ended();
      set.add(entry);
      return () => {
        const current = watchers.get(sessionKey);
        if (!current?.delete(entry)) return;
        if (current.size === 0) watchers.delete(sessionKey);
      };
    },
    check,
    /** The watches open now: counted when asked (metrics and tests), not kept beside the map. */
    get size() {
      let n = 0;
      for (const set of watchers.values()) n += set.size;
      return n;
    },
    stop() {
      clearInterval(timer);
      watchers.clear();
    },
  };
}
