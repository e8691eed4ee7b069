import type { Actor } from '../../domain/actor.js';
import { AppError } from '../../domain/errors.js';
import { normaliseEmail } from '../../domain/email.js';
import { newUserId } from '../../domain/ids.js';
import { isoTime, isoTimeOrNull } from '../../domain/iso-time.js';
import { checkPassword } from '../../domain/password.js';
import { hashPassword } from '../../hashing/passwords.js';
import { merchantById } from '../../storage/queries/merchants.js';
import { endSessionsOfUser } from '../../storage/queries/sessions.js';
import {
  insertUser,
  insertUserMerchants,
  merchantIdsOfUser,
  setUserDisabled,
  setUserPasswordHash,
  userByEmail,
  userById,
  usersInOrder,
} from '../../storage/queries/users.js';
import type { UserRole, UsersTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';

export interface UserView {
  id: string;
  email: string;
  role: UserRole;
  merchant_ids: string[];
  disabled: boolean;
  created_at: string;
  last_login_at: string | null;
}

export interface AddUserInput {
  email: string;
  password: string;
  role: string;
  merchantIds?: readonly string[];
}

/** A self-service user's row: a merchant user, its address confirmed at `verifiedAt` (null: not yet). */
export function merchantUserRow(email: string, passwordHash: string, now: number, verifiedAt: number | null): UsersTable {
  return {
    id: newUserId(),
    email,
    password_hash: passwordHash,
    role: 'merchant',
    disabled_at: null,
    last_login_at: null,
    created_at: now,
    updated_at: now,
    email_verified_at: verifiedAt,
  };
}

function parseRole(role: string): UserRole {
  if (role !== 'operator' && role !== 'merchant') throw new AppError('invalid_parameter', 'role must be operator or merchant', { param: 'role' });
  return role;
}

/** Adds a console user; audited under `actor`. A merchant user must name at least one merchant. */
export async function addUser(deps: Deps, input: AddUserInput, actor: Actor): Promise<UserView> {
  const email = normaliseEmail(input.email);
  const role = parseRole(input.role);
  checkPassword(input.password);
  const merchantIds = [...new Set(input.merchantIds ?? [])];
  if (role === 'merchant' && merchantIds.length === 0) {
    throw new AppError('invalid_parameter', 'a merchant user needs at least one --merchant', { param: 'merchant' });
  }
  if (role === 'operator' && merchantIds.length > 0) {
    throw new AppError('invalid_parameter', 'an operator sees every merchant; do not name any', { param: 'merchant' });
  }
  for (const id of merchantIds) {
    if (!(await merchantById(deps.db, id))) throw new AppError('merchant_not_found', `no merchant ${id}`, { param: 'merchant' });
  }
  // Hashed before the transaction: 50-100 ms of scrypt must not hold SQLite's group commit.
  const passwordHash = await hashPassword(input.password);
  const now = deps.now();
  // An operator made it: the address counts as known.
  const row: UsersTable = { id: newUserId(), email, password_hash: passwordHash, role, disabled_at: null, last_login_at: null, created_at: now, updated_at: now, email_verified_at: now };
  try {
    await deps.db.runInTransaction(async (trx) => {
      if (await userByEmail(trx, email)) throw new AppError('user_exists', `a user with the address ${email} already exists`, { param: 'email' });
      await insertUser(trx, row);
      await insertUserMerchants(trx, row.id, merchantIds, now);
      await writeAudit(trx, { actor, action: 'user.add', subjectType: 'user', subjectId: row.id, details: { email, role, merchant_ids: merchantIds }, now });
    });
  } catch (err) {
    // Two adds of one address at once: the unique index refuses the second.
    if (!(err instanceof AppError) && (await userByEmail(deps.db, email))) {
      throw new AppError('user_exists', `a user with the address ${email} already exists`, { param: 'email' });
    }
    throw err;
  }
  return view(row, merchantIds);
}

export async function listUsers(deps: Deps, role: UserRole | null = null): Promise<UserView[]> {
  const rows = await usersInOrder(deps.db, role);
  return Promise.all(rows.map(async (r) => view(r, r.role === 'merchant' ? await merchantIdsOfUser(deps.db, r.id) : [])));
}

/** A user by id (usr_...) or e-mail address. */
export async function findUser(deps: Deps, idOrEmail: string): Promise<UsersTable> {
  const row = idOrEmail.startsWith('usr_') ? await userById(deps.db, idOrEmail) : await userByEmail(deps.db, normaliseEmail(idOrEmail));
  if (!row) throw new AppError('user_not_found', `no user ${idOrEmail}`, { param: 'user' });
  return row;
}

/** Disables (or enables again) a user. Disabling ends every session at once. */
export async function setUserEnabled(deps: Deps, idOrEmail: string, enabled: boolean, actor: Actor): Promise<UserView> {
  const user = await findUser(deps, idOrEmail);
  const now = deps.now();
  await deps.db.runInTransaction(async (trx) => {
    await setUserDisabled(trx, user.id, enabled ? null : now, now);
    if (!enabled) await endSessionsOfUser(trx, user.id, now);
    await writeAudit(trx, { actor, action: enabled ? 'user.enable' : 'user.disable', subjectType: 'user', subjectId: user.id, now });
  });
  return view({ ...user, disabled_at: enabled ? null : now }, await merchantIdsOfUser(deps.db, user.id));
}

/**
 * Sets a new password. Every other session of the user ends (someone who knew the old password is
 * logged out); `keepSession` is the changer's own, when they change it from the console.
 */
export async function setUserPassword(deps: Deps, idOrEmail: string, password: string, actor: Actor, keepSession: string | null = null): Promise<UserView> {
  const user = await findUser(deps, idOrEmail);
  checkPassword(password);
  const passwordHash = await hashPassword(password);
  const now = deps.now();
  await deps.db.runInTransaction(async (trx) => {
    await setUserPasswordHash(trx, user.id, passwordHash, now);
    await endSessionsOfUser(trx, user.id, now, keepSession);
    await writeAudit(trx, { actor, action: 'user.password', subjectType: 'user', subjectId: user.id, now });
  });
  return view(user, await merchantIdsOfUser(deps.db, user.id));
}

function view(row: UsersTable, merchantIds: readonly string[]): UserView {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    merchant_ids: [...merchantIds],
    disabled: row.disabled_at !== null,
    created_at: isoTime(row.created_at),
    last_login_at: isoTimeOrNull(row.last_login_at),
  };
}
