import type { Actor } from '../../domain/actor.js';
import { normaliseEmail } from '../../domain/email.js';
import { AppError } from '../../domain/errors.js';
import { newUserId } from '../../domain/ids.js';
import { checkPassword } from '../../domain/password.js';
import { hashPassword } from '../../hashing/passwords.js';
import { merchantById } from '../../storage/queries/merchants.js';
import { insertUser, insertUserMerchants, userByEmail } from '../../storage/queries/users.js';
import type { UserRole, UsersTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { type UserView, userView } from './user-view.js';

export interface AddUserInput {
  email: string;
  password: string;
  role: string;
  merchantIds?: readonly string[];
}

function parseRole(role: string): UserRole {
  if (role !== 'operator' && role !== 'merchant' && role !== 'cashier') {
    throw new AppError('invalid_parameter', 'role must be operator, merchant or cashier', { param: 'role' });
  }
  return role;
}

/** Adds a console user; audited under `actor`. A merchant user or cashier must name at least one merchant. */
export async function addUser(deps: Deps, input: AddUserInput, actor: Actor): Promise<UserView> {
  const email = normaliseEmail(input.email);
  const role = parseRole(input.role);
  checkPassword(input.password);
  const merchantIds = [...new Set(input.merchantIds ?? [])];
  if (role !== 'operator' && merchantIds.length === 0) {
    throw new AppError(
      'invalid_parameter',
      `a ${role === 'cashier' ? 'cashier' : 'merchant user'} needs at least one --merchant`,
      { param: 'merchant' },
    );
  }
  if (role === 'operator' && merchantIds.length > 0) {
    throw new AppError('invalid_parameter', 'an operator sees every merchant; do not name any', { param: 'merchant' });
  }
  for (const id of merchantIds) {
    if (!(await merchantById(deps.db, id)))
      throw new AppError('merchant_not_found', `no merchant ${id}`, { param: 'merchant' });
  }
  // Hashed before the transaction: 50-100 ms of scrypt must not hold SQLite's group commit.
  const passwordHash = await hashPassword(input.password);
  const now = deps.now();
  // An operator made it: the address counts as known.
  const row: UsersTable = {
    id: newUserId(),
    email,
    password_hash: passwordHash,
    role,
    disabled_at: null,
    last_login_at: null,
    created_at: now,
    updated_at: now,
    email_verified_at: now,
  };
  try {
    await deps.db.runInTransaction(async (trx) => {
      if (await userByEmail(trx, email))
        throw new AppError('user_exists', `a user with the address ${email} already exists`, { param: 'email' });
      await insertUser(trx, row);
      await insertUserMerchants(trx, row.id, merchantIds, now);
      await writeAudit(trx, {
        actor,
        action: 'user.add',
        subjectType: 'user',
        subjectId: row.id,
        details: { email, role, merchant_ids: merchantIds },
        now,
      });
    });
  } catch (err) {
    // Two adds of one address at once: the unique index refuses the second.
    if (!(err instanceof AppError) && (await userByEmail(deps.db, email))) {
      throw new AppError('user_exists', `a user with the address ${email} already exists`, { param: 'email' });
    }
    throw err;
  }
  return userView(row, merchantIds);
}
