import { AppError } from '../../domain/errors.js';
import type { Deps } from '../deps.js';
import type { Counted } from './count-or-wait.js';
import { forgiveLoginAttempt } from './forgive-login-attempt.js';

/**
 * Runs a password hash for a counted attempt. When the hashing threads are too busy to take it
 * (`service_unavailable`, 503), the password was never checked: the attempt no longer counts.
 */
export async function checkCounted<T>(deps: Deps, counted: Counted, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AppError && err.code === 'service_unavailable') await forgiveLoginAttempt(deps, counted, false);
    throw err;
  }
}
