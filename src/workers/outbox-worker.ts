// The loop the outbox's dispatchers share: passes (services/outbox/dispatch-pass.ts) run every interval,
// and again at once after a full one.
import type { Deps } from '../services/deps.js';
import type { PassReport } from '../services/outbox/dispatch-pass.js';
import { runEvery, type Worker } from '../rounds/run-every.js';

/**
 * Runs passes every `intervalMs`; after a full pass it goes again at once, so a backlog drains at the
 * concurrency's pace rather than one batch per interval. A failing pass is logged and the next tick
 * tries again; while the database is unavailable the dispatcher backs off (outage-backoff.ts).
 */
export function runPasses(
  deps: Deps,
  intervalMs: number,
  concurrency: number,
  pass: () => Promise<PassReport>,
  failed: string,
): Worker {
  return runEvery(intervalMs, pass, deps.logger, failed, { again: (report) => report.claimed >= concurrency });
}
