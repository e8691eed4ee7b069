import type { UserRole } from './records.js';
import type { Actor } from './actor.js';

/**
 * Who is looking at the console, and so what every console query is scoped by: an operator sees every
 * merchant; a merchant user sees only the merchants it belongs to, and another merchant's object is a
 * 404 to it, exactly as an unknown id is. A cashier belongs to merchants as a merchant user does, but
 * sees only the sections `cashierMay` lists.
 */
export interface Viewer {
  userId: string;
  email: string;
  role: UserRole;
  /** The merchants a merchant user or cashier belongs to; empty for an operator (who is not limited by it). */
  merchantIds: readonly string[];
  /** The hash of this login's session id: CSRF tokens are bound to it. */
  sessionKey: string;
  /** Who the audit log names for what this viewer does: made once, with the viewer, for the whole request. */
  actor: Actor;
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
export const isCashier = (viewer: Viewer): boolean => viewer.role === 'cashier';

/**
 * The console sections (the first path segment after /dashboard) a cashier may open: the point of sale,
 * the soundbox, today's transactions of its merchants, its own account, and the console's plumbing
 * (logging out, the language switch, the static files). Every other section is a 404 to it, as an
 * unknown page is, so a cashier cannot even learn which sections exist.
 */
const CASHIER_SECTIONS: ReadonlySet<string> = new Set([
  'pos',
  'soundbox',
  'transactions',
  'account',
  'logout',
  'lang',
  'assets',
]);

export function cashierMay(section: string): boolean {
  return CASHIER_SECTIONS.has(section);
}

/**
 * Whether the point of sale opens a transaction for this viewer (its sale screen and its cancel): a cashier
 * only a sale it made there itself, never the shop's API orders or another cashier's sales (issue 35,
 * finding 4); an owner or operator any transaction it may see, as the console's own cancel does.
 */
export function posMayOpen(viewer: Viewer, createdByUserId: string | null | undefined): boolean {
  return viewer.role !== 'cashier' || createdByUserId === viewer.userId;
}

/** The segments of a console path: "/dashboard/pos/trx_1?x" -> ["pos", "trx_1"]; the front door -> [""]. */
function consoleSegments(path: string): string[] {
  return path
    .split('?')[0]!
    .replace(/^\/dashboard\/?/, '')
    .split('/');
}

/**
 * Whether the viewer may open a console path at all (before any page looks at its objects). A cashier
 * may read the transactions list and a transaction's page, but not act on one (cancel, confirm, resend:
 * its cancel is the point of sale's own); "/dashboard/transactions.csv", the export, is another section.
 */
export function mayOpen(viewer: Viewer, path: string): boolean {
  if (viewer.role !== 'cashier') return true;
  const segments = consoleSegments(path);
  if (!cashierMay(segments[0] ?? '')) return false;
  return segments[0] !== 'transactions' || segments.length <= 2 || (segments.length === 3 && segments[2] === 'receipt');
}

/** The merchants of `rows` the viewer may see (null: the CLI's operator, who sees every one). */
export function seenBy<R extends { id: string; name: string }>(
  viewer: Viewer | null,
  rows: readonly R[],
): Array<{ id: string; name: string }> {
  return rows.filter((r) => viewer === null || canSeeMerchant(viewer, r.id)).map((r) => ({ id: r.id, name: r.name }));
}
