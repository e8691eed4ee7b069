import { actorText, type Actor } from '../domain/actor.js';
import { newAuditId } from '../domain/ids.js';
import type { Executor } from '../storage/executor.js';
import { insertAuditEntry } from '../storage/queries/audit.js';

export interface AuditEntry {
  actor: Actor;
  action: string;
  subjectType: string;
  subjectId: string;
  details?: unknown;
  now: number;
}

/** Written in the same database transaction as the action, so no manual change goes unrecorded. */
export async function writeAudit(db: Executor, entry: AuditEntry): Promise<string> {
  const id = newAuditId();
  await insertAuditEntry(db, {
    id,
    actor: actorText(entry.actor),
    action: entry.action,
    subject_type: entry.subjectType,
    subject_id: entry.subjectId,
    details: entry.details === undefined ? null : JSON.stringify(entry.details),
    created_at: entry.now,
  });
  return id;
}
