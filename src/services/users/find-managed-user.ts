import { AppError } from '../../domain/errors.js';
import { managesUser } from '../../domain/user-scope.js';
import type { Viewer } from '../../domain/viewer.js';
import { merchantIdsOfUser, userById } from '../../storage/queries/users.js';
import type { UsersTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

/**
 * A user the viewer may disable or enable, by id; anyone else (another merchant's user, an unknown id,
 * the viewer itself) is a 404, so a merchant's owner cannot learn which users exist.
 */
export async function findManagedUser(deps: Deps, viewer: Viewer, id: string): Promise<UsersTable> {
  const row = id.startsWith('usr_') ? await userById(deps.db, id) : undefined;
  if (
    !row ||
    !managesUser(viewer, { id: row.id, role: row.role, merchantIds: await merchantIdsOfUser(deps.db, row.id) })
  ) {
    throw new AppError('not_found', 'not found');
  }
  return row;
}
