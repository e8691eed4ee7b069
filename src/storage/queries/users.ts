import type { Db, Executor, Tx } from '../executor.js';
import type { UserRole, UsersTable } from '../schema.js';

export function insertUser(trx: Tx, row: UsersTable): Promise<unknown> {
  return trx.insertInto('users').values(row).execute();
}

export function userByEmail(db: Executor, email: string): Promise<UsersTable | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export function userById(db: Executor, id: string): Promise<UsersTable | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export function usersInOrder(db: Db, role: UserRole | null): Promise<UsersTable[]> {
  let q = db.selectFrom('users').selectAll();
  if (role) q = q.where('role', '=', role);
  return q.orderBy('created_at').orderBy('id').execute();
}

/** Whether any operator can log in (enabled, not deleted): the start banner's "make one" is for when none can. */
export async function enabledOperatorExists(db: Db): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('role', '=', 'operator')
    .where('disabled_at', 'is', null)
    .where('deleted_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function setUserDisabled(trx: Tx, id: string, disabledAt: number | null, now: number): Promise<boolean> {
  const result = await trx
    .updateTable('users')
    .set({ disabled_at: disabledAt, updated_at: now })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function setUserPasswordHash(trx: Tx, id: string, passwordHash: string, now: number): Promise<boolean> {
  const result = await trx
    .updateTable('users')
    .set({ password_hash: passwordHash, updated_at: now })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export function markUserLoggedIn(trx: Tx, id: string, now: number): Promise<unknown> {
  return trx.updateTable('users').set({ last_login_at: now }).where('id', '=', id).execute();
}

export function insertUserMerchants(
  trx: Tx,
  userId: string,
  merchantIds: readonly string[],
  now: number,
): Promise<unknown> {
  if (merchantIds.length === 0) return Promise.resolve();
  return trx
    .insertInto('user_merchants')
    .values(merchantIds.map((merchant_id) => ({ user_id: userId, merchant_id, created_at: now })))
    .onConflict((oc) => oc.columns(['user_id', 'merchant_id']).doNothing())
    .execute();
}

/** The merchants a merchant user may see, oldest membership first. */
export async function merchantIdsOfUser(db: Executor, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('user_merchants')
    .select('merchant_id')
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('merchant_id')
    .execute();
  return rows.map((r) => r.merchant_id);
}

export function markEmailVerified(trx: Tx, id: string, now: number): Promise<unknown> {
  return trx
    .updateTable('users')
    .set({ email_verified_at: now, updated_at: now })
    .where('id', '=', id)
    .where('email_verified_at', 'is', null)
    .execute();
}

/** The other members of a merchant (who keep it when this user leaves). */
export async function otherMembersOf(db: Executor, merchantId: string, userId: string): Promise<number> {
  const row = await db
    .selectFrom('user_merchants')
    .innerJoin('users', 'users.id', 'user_merchants.user_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_merchants.merchant_id', '=', merchantId)
    .where('user_merchants.user_id', '!=', userId)
    .where('users.deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function deleteMembershipsOfUser(trx: Tx, userId: string): Promise<unknown> {
  return trx.deleteFrom('user_merchants').where('user_id', '=', userId).execute();
}

/**
 * Erases a user's personal data: the address becomes a placeholder nobody can log in with, the
 * password hash one that matches nothing. The row stays, so the audit log's entries keep their subject.
 */
export function anonymiseUser(
  trx: Tx,
  id: string,
  placeholderEmail: string,
  unusableHash: string,
  now: number,
): Promise<unknown> {
  return trx
    .updateTable('users')
    .set({ email: placeholderEmail, password_hash: unusableHash, disabled_at: now, deleted_at: now, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** The addresses of a merchant's users that were proven (a sign-up link opened, or made by an operator), enabled and not deleted. */
export async function confirmedMemberEmails(db: Executor, merchantId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('user_merchants')
    .innerJoin('users', 'users.id', 'user_merchants.user_id')
    .select('users.email')
    .where('user_merchants.merchant_id', '=', merchantId)
    .where('users.email_verified_at', 'is not', null)
    .where('users.disabled_at', 'is', null)
    .where('users.deleted_at', 'is', null)
    .execute();
  return rows.map((r) => r.email);
}

/**
 * How many merchants a user belongs to, inside the caller's transaction, after taking the user's row
 * lock (a no-op update: portable, and on PostgreSQL it makes two concurrent adds by one user count one
 * after the other; SQLite runs one writer at a time anyway).
 */
export async function lockAndCountMerchantsOfUser(trx: Tx, userId: string): Promise<number> {
  await trx
    .updateTable('users')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', userId)
    .execute();
  const row = await trx
    .selectFrom('user_merchants')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * For each of these merchants, the member who joined it first (for a self-service merchant, who added it)
 * with the time that user's account was made. A merchant without members is absent from the map.
 */
export async function firstMembersOf(
  db: Executor,
  merchantIds: readonly string[],
): Promise<Map<string, { email: string; signedUpAt: number; deleted: boolean }>> {
  const firsts = new Map<string, { email: string; signedUpAt: number; deleted: boolean }>();
  if (merchantIds.length === 0) return firsts;
  const rows = await db
    .selectFrom('user_merchants')
    .innerJoin('users', 'users.id', 'user_merchants.user_id')
    .select(['user_merchants.merchant_id', 'users.email', 'users.created_at', 'users.deleted_at'])
    .where('user_merchants.merchant_id', 'in', merchantIds)
    .orderBy('user_merchants.created_at')
    .orderBy('users.id')
    .execute();
  for (const r of rows) {
    if (!firsts.has(r.merchant_id))
      firsts.set(r.merchant_id, { email: r.email, signedUpAt: r.created_at, deleted: r.deleted_at != null });
  }
  return firsts;
}
