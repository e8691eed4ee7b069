import type { Logger } from 'pino';
import type { Deps } from '../services/deps.js';
import { pollDueFeeds } from '../sources/feed/poll.js';

/**
 * Looks for due feeds every tickMs; each feed's own interval and backoff live in next_poll_at, so the
 * tick only bounds how late a poll can start. A round never overlaps the previous one, and a failed
 * round is logged and retried at the next tick.
 */
export function startFeedPoller(deps: Deps, logger: Logger | null, tickMs = 1000): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = pollDueFeeds(deps, { logger })
      .then(() => undefined)
      .catch((err: unknown) => logger?.error({ err }, 'feed polling failed'))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, tickMs);
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
