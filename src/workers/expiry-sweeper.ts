import type { Logger } from 'pino';
import type { Deps } from '../services/deps.js';
import { expireDue } from '../services/expire-due.js';

/**
 * Runs expire-due on an interval. A sweep never overlaps the previous one, and a failed sweep is logged
 * and retried at the next tick rather than stopping the worker.
 */
export function startExpirySweeper(deps: Deps, logger: Logger | null, intervalMs: number): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = expireDue(deps)
      .then((count) => {
        if (count > 0) logger?.info({ expired: count }, 'expired due transactions');
      })
      .catch((err: unknown) => logger?.error({ err }, 'expiry sweep failed'))
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
