import { userActor } from '../../domain/actor.js';
import { hashSessionId, newSessionId } from '../../domain/console-session.js';
import { insertSession } from '../../storage/queries/sessions.js';
import { markUserLoggedIn } from '../../storage/queries/users.js';
import type { UsersTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';

/** Starts a session for a user who has just proven who they are (password, or a link from their mailbox). */
export async function startSession(
  deps: Deps,
  user: UsersTable,
  client: { clientAddress: string; userAgent: string | null },
  action: string,
): Promise<string> {
  const now = deps.now();
  const sessionId = newSessionId();
  await deps.db.runInTransaction(async (trx) => {
    await insertSession(trx, {
      id_hash: hashSessionId(sessionId),
      user_id: user.id,
      created_at: now,
      last_seen_at: now,
      expires_at: now + deps.config.sessionMaxHours * 3600_000,
      ended_at: null,
      client_address: client.clientAddress.slice(0, 64),
      user_agent: client.userAgent?.slice(0, 256) ?? null,
    });
    await markUserLoggedIn(trx, user.id, now);
    await writeAudit(trx, {
      actor: userActor(user),
      action,
      subjectType: 'user',
      subjectId: user.id,
      details: { address: client.clientAddress },
      now,
    });
  });
  return sessionId;
}
