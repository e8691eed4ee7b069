import type { UserRole } from './records.js';

/**
 * Who is looking at the console, and so what every console query is scoped by: an operator sees every
 * merchant; a merchant user sees only the merchants it belongs to, and another merchant's object is a
 * 404 to it, exactly as an unknown id is.
 */
export interface Viewer {
  userId: string;
  email: string;
  role: UserRole;
  /** The merchants a merchant user belongs to; empty for an operator (who is not limited by it). */
  merchantIds: readonly string[];
  /** The hash of this login's session id: CSRF tokens are bound to it. */
  sessionKey: string;
}

/** The merchants the viewer may see: null means all of them. */
export function merchantScope(viewer: Viewer): readonly string[] | null {
  return viewer.role === 'operator' ? null : viewer.merchantIds;
}

/** Whether the viewer may see this merchant's objects. */
export function canSeeMerchant(viewer: Viewer, merchantId: string): boolean {
  return viewer.role === 'operator' || viewer.merchantIds.includes(merchantId);
}

export const isOperator = (viewer: Viewer): boolean => viewer.role === 'operator';
