import type { Deps } from '../services/deps.js';
import { expireDue } from '../services/transactions/expire-due.js';
import { runEvery, type Worker } from '../rounds/run-every.js';

/**
 * Runs expire-due on an interval. A sweep never overlaps the previous one, and a failed sweep is logged
 * and retried at the next tick rather than stopping the worker.
 */
export function startExpirySweeper(deps: Deps, intervalMs: number): Worker {
  return runEvery(
    intervalMs,
    async () => {
      const count = await expireDue(deps);
      if (count > 0) deps.logger.info({ expired: count }, 'expired due transactions');
    },
    deps.logger,
    'expiry sweep failed',
  );
}
