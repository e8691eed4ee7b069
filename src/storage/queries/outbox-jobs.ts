// The outbox's rows, whatever is delivered: webhook deliveries (`deliveries`), merchants' alerts
// (`notify_deliveries`) and e-mails (`emails`). Each row is one job with the same claim columns (status,
// attempts, next_attempt_at, locked_until) and goes through the same states: due, leased by one worker
// at a time, then an attempt's outcome recorded only by the holder of the lease (succeeded, retried at
// a later time, failed for good, or, for an e-mail, skipped). The claim, the lease, the outcome and the
// attempt log are written here once for the three tables; what differs per table is only the names of
// its columns (an e-mail keeps its last error and when it was sent, the others their last status code
// and a log of attempts).
import { type RawBuilder, type SqlBool, sql } from 'kysely';
import { newAttemptId } from '../../domain/ids.js';
import { newNotifyAttemptId } from '../../domain/notify-channel.js';
import type { Executor, Tx } from '../executor.js';
import type { DeliveryAttemptsTable, NotifyAttemptsTable } from '../schema.js';

export type OutboxTable = 'deliveries' | 'notify_deliveries' | 'emails';
/** The tables whose attempts are kept one row each, and the table that keeps them. */
export type LoggedOutbox = 'deliveries' | 'notify_deliveries';
const ATTEMPT_LOG = { deliveries: 'delivery_attempts', notify_deliveries: 'notify_attempts' } as const;
const ATTEMPT_ID = { deliveries: newAttemptId, notify_deliveries: newNotifyAttemptId } as const;

/** An attempt as its log keeps it (a webhook's also keeps the start of the receiver's answer). */
export type AttemptRowOf<T extends LoggedOutbox> = T extends 'deliveries' ? DeliveryAttemptsTable : NotifyAttemptsTable;

/** What a table's due query is asked for. */
export interface DueJobs {
  now: number;
  limit: number;
  /** Only this job (a claim by id), if it is due. */
  only?: string;
  /** PostgreSQL, inside a unit of work: lock the rows returned and skip those another transaction holds. */
  skipLocked?: boolean;
}

/** The columns every new job starts with: pending, due at `dueAt`, unclaimed, never attempted. */
export function pendingJob(now: number, dueAt: number = now) {
  return { status: 'pending' as const, attempts: 0, next_attempt_at: dueAt, locked_until: null, created_at: now };
}

/**
 * A job of `ref` (a table or its alias) that is due at `now`: pending, its time come, and no lease
 * held. The due queries select by it, and the lease re-checks it atomically.
 */
export function dueAt(ref: string, now: number): RawBuilder<SqlBool> {
  const col = (name: string) => sql.ref(`${ref}.${name}`);
  return sql<SqlBool>`(${col('status')} = ${'pending'} and ${col('next_attempt_at')} <= ${now} and (${col('locked_until')} is null or ${col('locked_until')} <= ${now}))`;
}

/** Rows of `ref` older than `before` in (created_at, id) order: a log's next page, newest first. */
export function olderThan(ref: string, before: { createdAt: number; id: string }): RawBuilder<SqlBool> {
  const col = (name: string) => sql.ref(`${ref}.${name}`);
  return sql<SqlBool>`(${col('created_at')} < ${before.createdAt} or (${col('created_at')} = ${before.createdAt} and ${col('id')} < ${before.id}))`;
}

/**
 * Claims a job until `lease` if it is still due and unclaimed at `now` (the due query's condition,
 * re-checked atomically): of two workers that both saw it free, only the first wins.
 */
export async function leaseOutboxRow(
  db: Executor,
  table: OutboxTable,
  id: string,
  now: number,
  lease: number,
): Promise<boolean> {
  const result = await db
    .updateTable(table)
    .set({ locked_until: lease })
    .where('id', '=', id)
    .where(dueAt(table, now))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** What became of one attempt, as its job records it. */
export interface JobOutcome {
  /** `skipped` (e-mails only): nothing was sent and nothing will be, so it is not counted as an attempt. */
  state: 'succeeded' | 'retrying' | 'failed' | 'skipped';
  /** When a retried job is due again; null leaves next_attempt_at as it is. */
  nextAttemptAt: number | null;
  attemptedAt: number;
  statusCode: number | null;
  /** Why it failed or was skipped (an e-mail keeps it on its row; the others in their attempt log). */
  error: string | null;
  /** When the outcome is written. */
  now: number;
}

function outcomeColumns(table: OutboxTable, o: JobOutcome) {
  const counted = o.state === 'skipped' ? {} : { attempts: sql<number>`attempts + 1` };
  const next = o.nextAttemptAt === null ? {} : { next_attempt_at: o.nextAttemptAt };
  const status = o.state === 'retrying' ? 'pending' : o.state;
  if (table === 'emails') {
    const sent = o.state === 'succeeded' ? { status: 'sent' as const, sent_at: o.now } : { status };
    return { ...counted, ...next, ...sent, locked_until: null, last_error: o.error };
  }
  return {
    ...counted,
    ...next,
    status,
    locked_until: null,
    last_attempt_at: o.attemptedAt,
    last_status_code: o.statusCode,
  };
}

/**
 * Records an attempt's outcome on its job (the attempt counted, the claim cleared) only while the job
 * still carries `lease`; false when another claim (a resend, an expired lease taken over) has it
 * meanwhile, and then nothing is written.
 */
export async function recordOutboxOutcome(
  db: Executor,
  table: OutboxTable,
  id: string,
  lease: number,
  outcome: JobOutcome,
): Promise<boolean> {
  const updated = await db
    .updateTable(table)
    // One statement for three tables: the columns are those of `table` (outcomeColumns), which the
    // compiler cannot follow through the union.
    .set(outcomeColumns(table, outcome) as never)
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('locked_until', '=', lease)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** Adds an attempt to a job's log. */
export async function insertOutboxAttempt(
  trx: Tx,
  table: LoggedOutbox,
  attempt: Omit<DeliveryAttemptsTable, 'id' | 'response_body'> & { response_body?: string | null },
): Promise<void> {
  const { response_body, ...common } = attempt;
  const row = table === 'deliveries' ? { ...common, response_body: response_body ?? null } : common;
  await trx
    .insertInto(ATTEMPT_LOG[table])
    .values({ id: ATTEMPT_ID[table](), ...row } as never)
    .execute();
}

/** Every attempt of these jobs, oldest first (by the log's index on delivery_id). */
export async function attemptsOfJobs<T extends LoggedOutbox>(
  db: Executor,
  table: T,
  jobIds: readonly string[],
): Promise<AttemptRowOf<T>[]> {
  if (jobIds.length === 0) return [];
  // The two logs share every column but a webhook's response_body; the compiler is told one of them.
  const rows = await db
    .selectFrom(ATTEMPT_LOG[table] as 'notify_attempts')
    .selectAll()
    .where('delivery_id', 'in', jobIds)
    .orderBy('attempted_at')
    .orderBy('id')
    .execute();
  return rows as AttemptRowOf<T>[];
}

/** Closes the pending jobs of one endpoint or channel (`column` is `id`) as failed; how many. */
export async function failPendingJobs(
  trx: Tx,
  table: LoggedOutbox,
  column: 'endpoint_id' | 'channel_id',
  id: string,
): Promise<number> {
  const closed = await trx
    .updateTable(table)
    .set({ status: 'failed', locked_until: null })
    .where(sql.ref(column), '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(closed.numUpdatedRows);
}
