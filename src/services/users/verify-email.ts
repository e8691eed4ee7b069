import { userActor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { verifyPassword } from '../../hashing/passwords.js';
import { consumeUserToken, liveUserToken } from '../../storage/queries/user-tokens.js';
import { markEmailVerified, userById } from '../../storage/queries/users.js';
import type { UsersTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { hashLinkToken, LINK_TOKEN } from '../../domain/account-link.js';
import { invalidLink, type Client } from './link-use.js';
import { checkCounted } from './check-counted.js';
import { startSession } from './start-session.js';
import { countLoginAttempt } from './count-login-attempt.js';
import { forgiveLoginAttempt } from './forgive-login-attempt.js';
import { loginKeys } from '../../domain/console-session.js';

/**
 * Opens a sign-up link: the address is confirmed, the link used up, and the user logged in, but only
 * with the account's password. A link proves the mailbox, not who signed up: someone else may have
 * signed up the same address (issue 23). The password is counted by the login throttle like a login,
 * and a wrong one (`login_failed`) leaves the link as it was.
 */
export async function verifyEmail(
  deps: Deps,
  token: string,
  password: string,
  client: Client,
): Promise<{ sessionId: string; user: UsersTable }> {
  if (!LINK_TOKEN.test(token)) throw invalidLink();
  const now = deps.now();
  const live = await liveUserToken(deps.db, hashLinkToken(token), 'verify', now);
  const found = live?.user_id ? await userById(deps.db, live.user_id) : undefined;
  if (!live || !found || found.email !== live.email || found.deleted_at || found.disabled_at !== null)
    throw invalidLink();
  const keys = loginKeys(found.email, client.clientAddress);
  const counted = await countLoginAttempt(deps, keys);
  if (!(await checkCounted(deps, counted, () => verifyPassword(password, found.password_hash)))) {
    throw new AppError('login_failed', 'the password is wrong');
  }
  await forgiveLoginAttempt(deps, counted, true);
  const user = await deps.db.runInTransaction(async (trx) => {
    const used = await consumeUserToken(trx, hashLinkToken(token), 'verify', now);
    const current = used ? await userById(trx, found.id) : undefined;
    // Still the account whose password was just checked (not reset or deleted in between).
    if (
      !used ||
      !current ||
      used.user_id !== current.id ||
      current.password_hash !== found.password_hash ||
      current.deleted_at ||
      current.disabled_at !== null
    ) {
      throw invalidLink();
    }
    await markEmailVerified(trx, current.id, now);
    await writeAudit(trx, {
      actor: userActor(current),
      action: 'user.verify',
      subjectType: 'user',
      subjectId: current.id,
      now,
    });
    return current;
  });
  return { sessionId: await startSession(deps, user, client, 'user.login'), user };
}
