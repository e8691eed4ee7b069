import type { Deps } from '../services/deps.js';
import { resolveDueRefunds } from '../services/refunds/resolve-due-refunds.js';
import { runEvery, type Worker } from '../rounds/run-every.js';

// Due refunds are rare and their retries are spaced 30 s and more apart: a look every 10 s is plenty.
const INTERVAL_MS = 10_000;

/** Asks acquirers again about pending refunds until each is final (services/refunds/resolve-due-refunds.ts). */
export function startRefundResolver(deps: Deps, intervalMs = INTERVAL_MS): Worker {
  return runEvery(
    intervalMs,
    async () => {
      const asked = await resolveDueRefunds(deps);
      if (asked > 0) deps.logger.info({ asked }, 'asked acquirers about pending refunds');
    },
    deps.logger,
    'refund resolution failed',
  );
}
