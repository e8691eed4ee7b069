import type { Logger } from 'pino';

export interface Worker {
  stop(): Promise<void>;
}

/**
 * Runs `round` now and then every intervalMs. A round never overlaps the previous one; a failed round is
 * logged and the next tick tries again, so one bad run never stops a worker. stop() waits for the
 * round in flight.
 */
export function runEvery(intervalMs: number, round: () => Promise<unknown>, logger: Logger, failure: string): Worker {
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = round()
      .then(() => undefined)
      .catch((err: unknown) => logger.error({ err }, failure))
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
