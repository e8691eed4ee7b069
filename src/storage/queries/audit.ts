import type { Executor } from '../executor.js';
import type { AuditLogTable } from '../schema.js';

/** Appends one entry to the audit log. */
export async function insertAuditEntry(db: Executor, row: AuditLogTable): Promise<void> {
  await db.insertInto('audit_log').values(row).execute();
}

/** The audit entries about these subjects (of one type each), oldest first. Empty lists are skipped. */
export async function auditEntriesOf(db: Executor, subjects: Array<{ type: string; ids: readonly string[] }>): Promise<AuditLogTable[]> {
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
