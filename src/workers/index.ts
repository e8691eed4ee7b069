import type { Logger } from 'pino';
import type { Deps } from '../services/deps.js';
import { startExpirySweeper } from './expiry-sweeper.js';

export interface Worker {
  stop(): Promise<void>;
}

/**
 * Every background job of a `worker` or `all` process. Each is safe to run in several processes at
 * once (conditional updates, row claims), so instances need no leader.
 */
export function startBackgroundWork(deps: Deps, logger: Logger | null): Worker {
  const workers: Worker[] = [startExpirySweeper(deps, logger, deps.config.sweepIntervalMs)];
  return {
    async stop() {
      await Promise.all(workers.map((w) => w.stop()));
    },
  };
}
