import type { Logger } from 'pino';
import type { Deps } from '../services/deps.js';
import { pollDueSnapQueries, snapHousekeeping } from '../sources/snap/poll.js';

const HOUSEKEEPING_EVERY_MS = 60_000;

/**
 * Runs SNAP query polling on an interval. A round never overlaps the previous one; a failed round is
 * logged and the next tick tries again. With no SNAP source the round is one indexed select.
 */
export function startSnapPoller(deps: Deps, logger: Logger | null, intervalMs: number): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  let stopped = false;
  let lastHousekeeping = 0;
  const tick = () => {
    if (running || stopped) return;
    running = (async () => {
      await pollDueSnapQueries(deps, logger);
      if (Date.now() - lastHousekeeping >= HOUSEKEEPING_EVERY_MS) {
        lastHousekeeping = Date.now();
        await snapHousekeeping(deps);
      }
    })()
      .catch((err: unknown) => logger?.error({ err }, 'SNAP query polling failed'))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
