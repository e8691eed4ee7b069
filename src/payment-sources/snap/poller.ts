import type { Deps } from '../../services/deps.js';
import { pollDueSnapQueries, snapHousekeeping } from './poll.js';
import { runEvery, type Worker } from '../../rounds/run-every.js';

const HOUSEKEEPING_EVERY_MS = 60_000;

/**
 * Runs SNAP query polling on an interval. A round never overlaps the previous one; a failed round is
 * logged and the next tick tries again. With no SNAP source the round is one indexed select.
 */
export function startSnapPoller(deps: Deps, intervalMs: number): Worker {
  let lastHousekeeping = 0;
  return runEvery(
    intervalMs,
    async () => {
      await pollDueSnapQueries(deps);
      if (Date.now() - lastHousekeeping >= HOUSEKEEPING_EVERY_MS) {
        lastHousekeeping = Date.now();
        await snapHousekeeping(deps);
      }
    },
    deps.logger,
    'SNAP query polling failed',
  );
}
