import type { Deps } from '../services/deps.js';
import { forgetOldLogins } from '../services/users/forget-old-logins.js';
import { runEvery, type Worker } from '../rounds/run-every.js';

/** Every ten minutes: the console's finished sessions and stale login counters are deleted. */
export function startLoginHousekeeping(deps: Deps, intervalMs = 10 * 60_000): Worker {
  return runEvery(
    intervalMs,
    async () => {
      const gone = await forgetOldLogins(deps);
      if (gone.sessions + gone.throttles > 0) deps.logger.info(gone, 'forgot old console sessions and login counters');
    },
    deps.logger,
    'login housekeeping failed',
  );
}
