import type { ThrottleKey } from '../../domain/console-session.js';
import { AppError } from '../../domain/errors.js';
import type { Deps } from '../deps.js';
import { type Counted, countOrWait } from './count-or-wait.js';

/** Counts a password check before it is made; `login_throttled` (429) when the account or the address is waiting. */
export async function countLoginAttempt(deps: Deps, keys: readonly ThrottleKey[]): Promise<Counted> {
  const counted = await countOrWait(deps, keys);
  if (typeof counted === 'number')
    throw new AppError('login_throttled', `too many failed logins; try again in ${counted} s`, { retryAfter: counted });
  return counted;
}
