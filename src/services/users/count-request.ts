import type { ThrottleRule } from '../../domain/console-session.js';
import { AppError } from '../../domain/errors.js';
import type { Deps } from '../deps.js';
import { countOrWait } from './count-or-wait.js';

/**
 * Counts one request (a sign-up, a reset request) under `key` before it is acted on; past `free` of them
 * each further one waits twice as long as the last (from a minute up to a day): `rate_limited` (429).
 */
export async function countRequest(deps: Deps, key: string, free: number): Promise<void> {
  const rule: ThrottleRule = { free, firstDelayMs: 60_000, maxDelayMs: 24 * 3600_000 };
  const seconds = await countOrWait(deps, [{ key, rule }]);
  if (typeof seconds === 'number')
    throw new AppError('rate_limited', `too many requests from this address; try again in ${seconds} s`, {
      retryAfter: seconds,
    });
}
