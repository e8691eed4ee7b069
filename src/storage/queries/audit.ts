import type { Db, Executor } from '../executor.js';
import type { AuditLogTable } from '../schema.js';

/** Appends one entry to the audit log. */
export async function insertAuditEntry(db: Executor, row: AuditLogTable): Promise<void> {
  await db.insertInto('audit_log').values(row).execute();
}

/** The audit entries about these subjects (of one type each), oldest first. Empty lists are skipped. */
export async function auditEntriesOf(
  db: Executor,
  subjects: Array<{ type: string; ids: readonly string[] }>,
): Promise<AuditLogTable[]> {
  const wanted = subjects.filter((s) => s.ids.length > 0);
  if (wanted.length === 0) return [];
  return db
    .selectFrom('audit_log')
    .selectAll()
    .where((eb) => eb.or(wanted.map((s) => eb.and([eb('subject_type', '=', s.type), eb('subject_id', 'in', s.ids)]))))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export interface AuditQuery {
  actor: string | null;
  action: string | null;
  /** Entries strictly older than this one (newest-first order: created_at, then id). */
  before: { createdAt: number; id: string } | null;
  limit: number;
}

/**
 * Audit entries newest first, optionally of one actor and one action, after a cursor. audit_log has no
 * index on created_at, so each page sorts the matching rows: fine for a log of manual actions and logins
 * (thousands to some hundreds of thousands of rows); an index on (created_at, id) would make it a range
 * read if the log grows beyond that.
 */
export async function auditEntries(db: Db, q: AuditQuery): Promise<AuditLogTable[]> {
  let query = db.selectFrom('audit_log').selectAll();
  if (q.actor !== null) query = query.where('actor', '=', q.actor);
  if (q.action !== null) query = query.where('action', '=', q.action);
  const before = q.before;
  if (before !== null) {
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', before.createdAt),
        eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
      ]),
    );
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit).execute();
}
