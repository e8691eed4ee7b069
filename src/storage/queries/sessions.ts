import type { Db, Executor, Tx } from '../executor.js';
import type { SessionsTable, UsersTable } from '../schema.js';

export function insertSession(trx: Tx, row: SessionsTable): Promise<unknown> {
  return trx.insertInto('sessions').values(row).execute();
}

/** A session with its user, in one read (every console page asks this first). */
export function sessionWithUser(db: Db, idHash: string): Promise<(SessionsTable & { user: UsersTable }) | undefined> {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'sessions.id_hash',
      'sessions.user_id',
      'sessions.created_at',
      'sessions.last_seen_at',
      'sessions.expires_at',
      'sessions.ended_at',
      'sessions.client_address',
      'sessions.user_agent',
      'users.id as u_id',
      'users.email as u_email',
      'users.password_hash as u_password_hash',
      'users.role as u_role',
      'users.disabled_at as u_disabled_at',
      'users.last_login_at as u_last_login_at',
      'users.created_at as u_created_at',
      'users.updated_at as u_updated_at',
    ])
    .where('sessions.id_hash', '=', idHash)
    .executeTakeFirst()
    .then((r) =>
      r === undefined
        ? undefined
        : {
            id_hash: r.id_hash,
            user_id: r.user_id,
            created_at: r.created_at,
            last_seen_at: r.last_seen_at,
            expires_at: r.expires_at,
            ended_at: r.ended_at,
            client_address: r.client_address,
            user_agent: r.user_agent,
            user: {
              id: r.u_id,
              email: r.u_email,
              password_hash: r.u_password_hash,
              role: r.u_role,
              disabled_at: r.u_disabled_at,
              last_login_at: r.u_last_login_at,
              created_at: r.u_created_at,
              updated_at: r.u_updated_at,
            },
          },
    );
}

/** Ids looked up per statement: well under every database's limit on bound values. */
const STANDING_CHUNK = 500;

/**
 * Of these sessions (by id hash), the ones that still stand at `now`: not ended (logout, a password
 * change, the user disabled or deleted), not past their absolute end, their user not disabled. One
 * statement by primary key per 500 ids. Idleness is not asked: the caller holds the user's open stream.
 */
export async function standingSessionsAmong(db: Db, idHashes: readonly string[], now: number): Promise<Set<string>> {
  const standing = new Set<string>();
  for (let i = 0; i < idHashes.length; i += STANDING_CHUNK) {
    const rows = await db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select('sessions.id_hash')
      .where('sessions.id_hash', 'in', idHashes.slice(i, i + STANDING_CHUNK))
      .where('sessions.ended_at', 'is', null)
      .where('sessions.expires_at', '>', now)
      .where('users.disabled_at', 'is', null)
      .execute();
    for (const row of rows) standing.add(row.id_hash);
  }
  return standing;
}

/** Moves last_seen_at forward (never back: two page views may race). */
export function touchSession(db: Executor, idHash: string, now: number): Promise<unknown> {
  return db
    .updateTable('sessions')
    .set({ last_seen_at: now })
    .where('id_hash', '=', idHash)
    .where('last_seen_at', '<', now)
    .execute();
}

export function endSession(db: Executor, idHash: string, now: number): Promise<unknown> {
  return db
    .updateTable('sessions')
    .set({ ended_at: now })
    .where('id_hash', '=', idHash)
    .where('ended_at', 'is', null)
    .execute();
}

/** Ends every open session of a user, but the one kept (a password change keeps the changer's own). */
export function endSessionsOfUser(trx: Tx, userId: string, now: number, keep: string | null = null): Promise<unknown> {
  let q = trx
    .updateTable('sessions')
    .set({ ended_at: now })
    .where('user_id', '=', userId)
    .where('ended_at', 'is', null);
  if (keep !== null) q = q.where('id_hash', '!=', keep);
  return q.execute();
}

/** Forgets sessions whose absolute end is long past. */
export async function deleteSessionsExpiredBefore(db: Executor, before: number): Promise<number> {
  const result = await db.deleteFrom('sessions').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
