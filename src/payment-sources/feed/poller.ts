import type { Deps } from '../../services/deps.js';
import { pollDueFeeds } from './poll.js';
import { runEvery, type Worker } from '../../rounds/run-every.js';

/**
 * Looks for due feeds every tickMs; each feed's own interval and backoff live in next_poll_at, so the
 * tick only bounds how late a poll can start. A round never overlaps the previous one, and a failed
 * round is logged and retried at the next tick.
 */
export function startFeedPoller(deps: Deps, tickMs = 1000): Worker {
  return runEvery(tickMs, () => pollDueFeeds(deps), deps.logger, 'feed polling failed');
}
