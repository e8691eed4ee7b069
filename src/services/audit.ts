import { userInfo } from 'node:os';
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

/** The CLI's actor: QRIS_OPERATOR when set, else the OS account running the command. */
export function cliActor(configured: string | null): Actor {
  return { kind: 'cli', operator: operatorName(configured) };
}

function operatorName(configured: string | null): string {
  if (configured) return configured;
  try {
    return userInfo().username || 'unknown';
  } catch {
    // Containers may run under a uid with no passwd entry.
    return 'unknown';
  }
}
