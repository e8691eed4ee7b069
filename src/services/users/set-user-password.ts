import type { Actor } from '../../domain/actor.js';
import { checkPassword } from '../../domain/password.js';
import { hashPassword } from '../../hashing/passwords.js';
import { endSessionsOfUser } from '../../storage/queries/sessions.js';
import { merchantIdsOfUser, setUserPasswordHash } from '../../storage/queries/users.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { findUser } from './find-user.js';
import { type UserView, userView } from './user-view.js';

/**
 * Sets a new password. Every other session of the user ends (someone who knew the old password is
 * logged out); `keepSession` is the changer's own, when they change it from the console.
 */
export async function setUserPassword(
  deps: Deps,
  idOrEmail: string,
  password: string,
  actor: Actor,
  keepSession: string | null = null,
): Promise<UserView> {
  const user = await findUser(deps, idOrEmail);
  checkPassword(password);
  const passwordHash = await hashPassword(password);
  const now = deps.now();
  await deps.db.runInTransaction(async (trx) => {
    await setUserPasswordHash(trx, user.id, passwordHash, now);
    await endSessionsOfUser(trx, user.id, now, keepSession);
    await writeAudit(trx, { actor, action: 'user.password', subjectType: 'user', subjectId: user.id, now });
  });
  return userView(user, await merchantIdsOfUser(deps.db, user.id));
}
