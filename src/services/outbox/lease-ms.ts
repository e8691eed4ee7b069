import type { Deps } from '../deps.js';

/**
 * A claim outlives the slowest possible attempt (the HTTP timeout) by a margin for recording it; a
 * dispatcher that dies mid-attempt leaves the job to others once this passes.
 */
export function leaseMs(deps: Deps): number {
  return deps.config.webhookTimeoutMs + 15_000;
}
