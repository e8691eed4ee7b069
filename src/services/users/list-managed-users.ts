import { managesUser } from '../../domain/user-scope.js';
import type { Viewer } from '../../domain/viewer.js';
import type { Deps } from '../deps.js';
import { listUsers } from './list-users.js';
import type { UserView } from './user-view.js';

/**
 * The users the viewer sees on the users page: every user for an operator, the cashiers of its own
 * merchants for a merchant's owner (domain/user-scope.ts). The viewer itself is listed too, for an
 * operator only, as before (it is shown without buttons).
 */
export async function listManagedUsers(deps: Deps, viewer: Viewer): Promise<UserView[]> {
  const users = await listUsers(deps, viewer.role === 'operator' ? null : 'cashier');
  return users.filter(
    (u) =>
      (viewer.role === 'operator' && u.id === viewer.userId) ||
      managesUser(viewer, { id: u.id, role: u.role, merchantIds: u.merchant_ids }),
  );
}
