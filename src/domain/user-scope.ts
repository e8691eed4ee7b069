import type { UserRole } from './records.js';
import type { Viewer } from './viewer.js';

/** Who a console user is, as far as deciding who may see or change it goes. */
export interface UserInScope {
  id: string;
  role: UserRole;
  merchantIds: readonly string[];
}

/**
 * Whether the viewer may see (and disable or enable) this user on the users page. An operator manages
 * every other user. A merchant's owner manages only cashiers every one of whose merchants is its own: a
 * cashier shared with another merchant belongs partly to someone else (and would show that merchant's
 * id), so it is the operator's, and a 404 to the owner as an unknown user is. Nobody manages itself here.
 */
export function managesUser(viewer: Viewer, user: UserInScope): boolean {
  if (user.id === viewer.userId) return false;
  if (viewer.role === 'operator') return true;
  if (viewer.role !== 'merchant' || user.role !== 'cashier' || user.merchantIds.length === 0) return false;
  return user.merchantIds.every((id) => viewer.merchantIds.includes(id));
}

/**
 * Whether the viewer may invite someone with this role to these merchants. An operator invites anyone; a
 * merchant's owner invites cashiers of its own merchants only; a cashier invites nobody.
 */
export function mayInvite(viewer: Viewer, role: UserRole, merchantIds: readonly string[]): boolean {
  if (viewer.role === 'operator') return role !== 'operator';
  if (viewer.role !== 'merchant' || role !== 'cashier' || merchantIds.length === 0) return false;
  return merchantIds.every((id) => viewer.merchantIds.includes(id));
}

/** Whether the viewer may open the users page at all (an operator, or a merchant's owner for its cashiers). */
export function seesUsersPage(viewer: Viewer): boolean {
  return viewer.role === 'operator' || viewer.role === 'merchant';
}
