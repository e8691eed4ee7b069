import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Copies SQLite's write-ahead log into the database file from a worker thread.
 *
 * Left to SQLite, the connection that commits past wal_autocheckpoint pages runs the checkpoint inside
 * that COMMIT: on the event loop, a thousand page writes and two fsyncs, several milliseconds in which
 * no request is served (the p99 of a flood of creates). A second connection in a worker thread runs
 * PASSIVE checkpoints instead, which never block the writer or readers; the main connection keeps a
 * much larger auto-checkpoint as a backstop, which then finds little left to copy.
 *
 * The worker is eval'd source rather than a module file so it runs the same under tsx (tests) and from
 * dist/ (production), and it loads the same better-sqlite3 the main thread uses.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 0');
let stopped = false;
const tick = () => {
  if (stopped) return;
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    // Busy or transient: the next tick tries again; the main connection's backstop still applies.
  }
  setTimeout(tick, workerData.intervalMs);
};
setTimeout(tick, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  stopped = true;
  try { db.close(); } catch {}
  // Ends this thread only.
  process.exit(0);
});
`;

/** Main-connection auto-checkpoint once a worker runs them: a backstop, in pages (~16 MB). */
export const BACKSTOP_PAGES = 4000;

export interface Checkpointer {
  /**
   * Stops the thread and resolves on its exit event, with the exit code Node reports: 0 when the thread
   * ended itself on being asked, 1 when it had to be terminated (stuck in a checkpoint).
   */
  stop(): Promise<number>;
}

export function startCheckpointer(path: string, intervalMs = 200): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver, intervalMs } });
  // The server never waits on it to exit; an error in it must not crash the gateway (the backstop
  // auto-checkpoint keeps the log bounded without it).
  worker.unref();
  worker.on('error', () => {});
  let exitCode: number | null = null;
  worker.once('exit', (code) => (exitCode = code));
  let stopping: Promise<number> | null = null;
  return {
    stop() {
      stopping ??=
        exitCode !== null
          ? Promise.resolve(exitCode)
          : new Promise<number>((resolve) => {
              worker.once('exit', (code) => resolve(code));
              // Unref'd, the worker's exit would not keep the loop alive long enough to be heard.
              worker.ref();
              worker.postMessage('stop');
              // A worker stuck in a checkpoint is terminated after a moment.
              setTimeout(() => void worker.terminate(), 2000).unref();
            });
      return stopping;
    },
  };
}
