// The delivery log, as the console pages show it for every queue that keeps one: a page of an owner's
// jobs (an endpoint's deliveries, a channel's alerts), newest first, each with all its attempts, and
// the cursor of the next page.
import type { Deps } from '../deps.js';
import { attemptsOfJobs, type AttemptRowOf, type LoggedOutbox } from '../../storage/queries/outbox-jobs.js';
import type { Executor } from '../../storage/executor.js';

export const LOG_ENTRIES_PER_PAGE = 20;

/** Where a log's page starts: its jobs older than this. */
export type LogCursor = { createdAt: number; id: string };

/** One queue's log of one owner. */
export interface LogSource<T extends LoggedOutbox, Row extends { id: string; created_at: number }> {
  table: T;
  /** The id prefix of its jobs (`dlv`, `ndl`): a cursor with another is the first page. */
  idPrefix: string;
  /** Up to `limit` of the owner's jobs older than `before`, newest first. */
  page(db: Executor, before: LogCursor | null, limit: number): Promise<Row[]>;
}

export type WithAttempts<T extends LoggedOutbox, Row> = Row & {
  /** Oldest first. */
  attemptLog: AttemptRowOf<T>[];
};

/** Where a page of a log ends, as one URL-safe token. */
function logCursor(row: { created_at: number; id: string }): string {
  return `${row.created_at}.${row.id}`;
}

/** A page of the log from `cursor` (null, or a malformed one, for the newest). */
export async function deliveryLog<T extends LoggedOutbox, Row extends { id: string; created_at: number }>(
  deps: Deps,
  source: LogSource<T, Row>,
  cursor: string | null,
): Promise<{ entries: WithAttempts<T, Row>[]; next: string | null }> {
  const m =
    cursor === null ? null : new RegExp(`^([0-9]{1,16})\\.(${source.idPrefix}_[0-9A-Za-z]{1,64})$`).exec(cursor);
  const before = m ? { createdAt: Number(m[1]), id: m[2]! } : null;
  const rows = await source.page(deps.db, before, LOG_ENTRIES_PER_PAGE + 1);
  const page = rows.slice(0, LOG_ENTRIES_PER_PAGE);
  const attempts = await attemptsOfJobs(
    deps.db,
    source.table,
    page.map((d) => d.id),
  );
  const byJob = new Map<string, AttemptRowOf<T>[]>();
  for (const a of attempts) {
    const list = byJob.get(a.delivery_id);
    if (list) list.push(a);
    else byJob.set(a.delivery_id, [a]);
  }
  return {
    entries: page.map((d) => ({ ...d, attemptLog: byJob.get(d.id) ?? [] })),
    next: rows.length > LOG_ENTRIES_PER_PAGE ? logCursor(page[page.length - 1]!) : null,
  };
}
