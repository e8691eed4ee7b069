import { merchantIdsOfUser, usersInOrder } from '../../storage/queries/users.js';
import type { UserRole } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { type UserView, userView } from './user-view.js';

export async function listUsers(deps: Deps, role: UserRole | null = null): Promise<UserView[]> {
  const rows = await usersInOrder(deps.db, role);
  return Promise.all(
    rows.map(async (r) => userView(r, r.role !== 'operator' ? await merchantIdsOfUser(deps.db, r.id) : [])),
  );
}
