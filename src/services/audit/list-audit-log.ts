import { AppError } from '../../domain/errors.js';
import { auditEntries } from '../../storage/queries/audit.js';
import type { AuditLogTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { isOperator, type Viewer } from '../../domain/viewer.js';

export const AUDIT_PAGE_SIZE = 50;

export interface AuditPage {
  entries: AuditLogTable[];
  /** The cursor of the next (older) page, or null on the last one. */
  next: string | null;
}

/** A page cursor: the last entry's time and id. Opaque to the page, checked strictly here. */
function auditCursor(entry: { created_at: number; id: string }): string {
  return `${entry.created_at}.${entry.id}`;
}

function parseCursor(cursor: string): { createdAt: number; id: string } {
  const m = /^([0-9]{1,15})\.(aud_[A-Za-z0-9]{1,40})$/.exec(cursor);
  if (!m) throw new AppError('invalid_parameter', 'the page cursor is not valid', { param: 'before' });
  return { createdAt: Number(m[1]), id: m[2]! };
}

/**
 * The audit log, newest first, for operators only (to anyone else it does not exist): optionally one
 * actor's and one action's entries, a page at a time.
 */
export async function listAuditLog(
  deps: Deps,
  viewer: Viewer,
  filter: { actor: string; action: string; before: string },
): Promise<AuditPage> {
  if (!isOperator(viewer)) throw new AppError('not_found', 'no audit log here');
  const rows = await auditEntries(deps.db, {
    actor: filter.actor.trim() || null,
    action: filter.action.trim() || null,
    before: filter.before ? parseCursor(filter.before) : null,
    limit: AUDIT_PAGE_SIZE + 1,
  });
  const entries = rows.slice(0, AUDIT_PAGE_SIZE);
  return { entries, next: rows.length > AUDIT_PAGE_SIZE ? auditCursor(entries[entries.length - 1]!) : null };
}
