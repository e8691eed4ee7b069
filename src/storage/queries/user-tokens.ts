import type { Executor, Tx } from '../executor.js';
import type { TokenPurpose, UserTokensTable } from '../schema.js';

export function insertUserToken(trx: Tx, row: UserTokensTable): Promise<unknown> {
  return trx.insertInto('user_tokens').values(row).execute();
}

/** A link's token, if it is of this purpose, unused and not expired at `now`. */
export function liveUserToken(
  db: Executor,
  tokenHash: string,
  purpose: TokenPurpose,
  now: number,
): Promise<UserTokensTable | undefined> {
  return db
    .selectFrom('user_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/**
 * Uses a token up: one statement that succeeds for exactly one caller, however many open the link at
 * once. Returns the token's row, or undefined when it was used, expired or never existed.
 */
export function consumeUserToken(
  trx: Tx,
  tokenHash: string,
  purpose: TokenPurpose,
  now: number,
): Promise<UserTokensTable | undefined> {
  return trx
    .updateTable('user_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returningAll()
    .executeTakeFirst();
}

/** Every unused token of a user (or of an address) of this purpose stops working (a newer one was sent). */
export function retireUserTokens(trx: Tx, email: string, purpose: TokenPurpose, now: number): Promise<unknown> {
  return trx
    .updateTable('user_tokens')
    .set({ used_at: now })
    .where('email', '=', email)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
}

export function deleteTokensOfUser(trx: Tx, userId: string, email: string): Promise<unknown> {
  return trx
    .deleteFrom('user_tokens')
    .where((eb) => eb.or([eb('user_id', '=', userId), eb('email', '=', email)]))
    .execute();
}

/** Forgets tokens whose time is long past. */
export async function deleteTokensExpiredBefore(db: Executor, before: number): Promise<number> {
  const result = await db.deleteFrom('user_tokens').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
