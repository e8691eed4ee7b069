import { flushKeyUses, KEY_USE_FLUSH_MS } from '../services/merchants/key-uses.js';
import type { Deps } from '../services/deps.js';
import { runEvery, type Worker } from '../rounds/run-every.js';

/**
 * Writes "last used" of the API keys this process has authenticated, once a minute and once more when it
 * stops. Runs in every process that serves the API (it is the API's own memory that is flushed), not
 * with the background jobs.
 */
export function startKeyUseFlusher(deps: Deps, intervalMs = KEY_USE_FLUSH_MS): Worker {
  const loop = runEvery(intervalMs, () => flushKeyUses(deps), deps.logger, 'writing API keys last use failed');
  return {
    async stop() {
      await loop.stop();
      await flushKeyUses(deps).catch((err: unknown) => deps.logger.error({ err }, 'writing API keys last use failed'));
    },
  };
}
