import { THROTTLE_FORGET_MS } from '../../domain/console-session.js';
import { deleteThrottlesBefore } from '../../storage/queries/login-throttles.js';
import { deleteSessionsExpiredBefore } from '../../storage/queries/sessions.js';
import type { Deps } from '../deps.js';

/** Sessions are kept a week past their end (who was logged in when), then deleted; the audit log keeps logins. */
export const ENDED_SESSION_KEEP_MS = 7 * 86_400_000;

/** Deletes sessions long over and login-failure counters that no longer count. */
export async function forgetOldLogins(deps: Deps): Promise<{ sessions: number; throttles: number }> {
  const now = deps.now();
  return deps.db.runInTransaction(async (trx) => ({
    sessions: await deleteSessionsExpiredBefore(trx, now - ENDED_SESSION_KEEP_MS),
    throttles: await deleteThrottlesBefore(trx, now - THROTTLE_FORGET_MS),
  }));
}
