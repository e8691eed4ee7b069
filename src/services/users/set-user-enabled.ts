import type { Actor } from '../../domain/actor.js';
import { endSessionsOfUser } from '../../storage/queries/sessions.js';
import { merchantIdsOfUser, setUserDisabled } from '../../storage/queries/users.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { findUser } from './find-user.js';
import { type UserView, userView } from './user-view.js';

/** Disables (or enables again) a user. Disabling ends every session at once. */
export async function setUserEnabled(deps: Deps, idOrEmail: string, enabled: boolean, actor: Actor): Promise<UserView> {
  const user = await findUser(deps, idOrEmail);
  const now = deps.now();
  await deps.db.runInTransaction(async (trx) => {
    await setUserDisabled(trx, user.id, enabled ? null : now, now);
    if (!enabled) await endSessionsOfUser(trx, user.id, now);
    await writeAudit(trx, {
      actor,
      action: enabled ? 'user.enable' : 'user.disable',
      subjectType: 'user',
      subjectId: user.id,
      now,
    });
  });
  return userView({ ...user, disabled_at: enabled ? null : now }, await merchantIdsOfUser(deps.db, user.id));
}
