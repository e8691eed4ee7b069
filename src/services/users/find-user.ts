import { normaliseEmail } from '../../domain/email.js';
import { AppError } from '../../domain/errors.js';
import { userByEmail, userById } from '../../storage/queries/users.js';
import type { UsersTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

/** A user by id (usr_...) or e-mail address. */
export async function findUser(deps: Deps, idOrEmail: string): Promise<UsersTable> {
  const row = idOrEmail.startsWith('usr_')
    ? await userById(deps.db, idOrEmail)
    : await userByEmail(deps.db, normaliseEmail(idOrEmail));
  if (!row) throw new AppError('user_not_found', `no user ${idOrEmail}`, { param: 'user' });
  return row;
}
