import { hashSessionId, needsTouch, SESSION_ID, sessionState } from '../../domain/console-session.js';
import { sessionWithUser, touchSession } from '../../storage/queries/sessions.js';
import { merchantIdsOfUser } from '../../storage/queries/users.js';
import type { Deps } from '../deps.js';
import type { Viewer } from '../../domain/viewer.js';
import { userActor } from '../../domain/actor.js';

/**
 * The viewer a session cookie stands for, or null: no such session, ended (logout, password change,
 * user disabled), past its absolute end, idle too long, or its user disabled. An active session's
 * last_seen_at moves forward at most once a minute.
 */
export async function resumeSession(deps: Deps, sessionId: string | undefined): Promise<Viewer | null> {
  if (!sessionId || !SESSION_ID.test(sessionId)) return null;
  const idHash = hashSessionId(sessionId);
  const session = await sessionWithUser(deps.db, idHash);
  if (!session || session.user.disabled_at !== null) return null;
  const now = deps.now();
  if (sessionState(session, now, deps.config.sessionIdleMinutes * 60_000) !== 'active') return null;
  if (needsTouch(session, now)) await touchSession(deps.db, idHash, now);
  const merchantIds = session.user.role !== 'operator' ? await merchantIdsOfUser(deps.db, session.user.id) : [];
  return {
    userId: session.user.id,
    email: session.user.email,
    role: session.user.role,
    merchantIds,
    sessionKey: idHash,
    actor: userActor(session.user),
  };
}
