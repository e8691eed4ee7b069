import type { Logger } from 'pino';
import { OutageBackoff } from './outage-backoff.js';

export interface Worker {
  stop(): Promise<void>;
}

/**
 * Runs `round` now and then every intervalMs. A round never overlaps the previous one; a failed round is
 * logged and the next tick tries again, so one bad run never stops a worker. While the database is
 * unavailable the worker backs off instead (outage-backoff.ts). stop() waits for the round in flight.
 * `again` says from a round's result that more is waiting (an outbox pass that claimed a full batch): the
 * next round then starts at once, so a backlog drains at the round's pace instead of the interval's.
 */
export function runEvery<T>(
  intervalMs: number,
  round: () => Promise<T>,
  logger: Logger,
  failure: string,
  options: { again?: (result: T) => boolean } = {},
): Worker {
  let running: Promise<void> | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const outage = new OutageBackoff(intervalMs, logger, failure);
  const schedule = (delay: number) => {
    if (stopped) return;
    timer = setTimeout(tick, delay);
    timer.unref();
  };
  const tick = () => {
    if (running || stopped) return;
    const started = Date.now();
    // Rounds start intervalMs apart (a long round is followed at once by the next), as a timer's would.
    const onTime = () => Math.max(0, intervalMs - (Date.now() - started));
    running = round()
      .then((result) => {
        outage.succeeded();
        return options.again?.(result) ? 0 : onTime();
      })
      .catch((err: unknown) => {
        const pause = outage.failed(err);
        if (pause !== null) return pause;
        logger.error({ err }, failure);
        return onTime();
      })
      .then((delay) => {
        running = null;
        schedule(delay);
      });
  };
  tick();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
