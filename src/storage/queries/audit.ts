import type { Executor } from '../executor.js';
import type { AuditLogTable } from '../schema.js';

/** Appends one entry to the audit log. */
export async function insertAuditEntry(db: Executor, row: AuditLogTable): Promise<void> {
  await db.insertInto('audit_log').values(row).execute();
}
