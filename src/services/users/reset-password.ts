import { userActor } from '../../domain/actor.js';
import { checkPassword } from '../../domain/password.js';
import { hashPassword } from '../../hashing/passwords.js';
import { endSessionsOfUser } from '../../storage/queries/sessions.js';
import { consumeUserToken } from '../../storage/queries/user-tokens.js';
import { markEmailVerified, setUserPasswordHash, userById } from '../../storage/queries/users.js';
import type { UsersTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { hashLinkToken } from '../../domain/account-link.js';
import { linkIsLive } from './link-is-live.js';
import { invalidLink, type Client } from './link-use.js';
import { startSession } from './start-session.js';

/** Uses a reset link: a new password, every other session ended, the address confirmed, logged in. */
export async function resetPassword(
  deps: Deps,
  token: string,
  password: string,
  client: Client,
): Promise<{ sessionId: string; user: UsersTable }> {
  // The link is looked up before anything is hashed: a made-up token costs one indexed read.
  if (!(await linkIsLive(deps, token, 'reset'))) throw invalidLink();
  checkPassword(password);
  const passwordHash = await hashPassword(password);
  const now = deps.now();
  const user = await deps.db.runInTransaction(async (trx) => {
    const used = await consumeUserToken(trx, hashLinkToken(token), 'reset', now);
    const found = used?.user_id ? await userById(trx, used.user_id) : undefined;
    if (!found || found.email !== used!.email || found.deleted_at || found.disabled_at !== null) throw invalidLink();
    await setUserPasswordHash(trx, found.id, passwordHash, now);
    await markEmailVerified(trx, found.id, now);
    await endSessionsOfUser(trx, found.id, now);
    await writeAudit(trx, {
      actor: userActor(found),
      action: 'user.password_reset',
      subjectType: 'user',
      subjectId: found.id,
      now,
    });
    return found;
  });
  return { sessionId: await startSession(deps, user, client, 'user.login'), user };
}
