// The outbox's queues. Everything the gateway delivers (a webhook to an endpoint, an alert on a
// merchant's channel, an e-mail) is a job of one of them: written in the unit of work of the change it
// reports, claimed under a lease by one worker at a time, attempted, and its outcome recorded by the
// holder of the lease, with a retry at a later time until the queue's schedule is spent. The claim,
// the lease, the outcome, the backoff and the attempt log are written once (claim-due.ts,
// record-attempt.ts, run-due.ts, delivery-log.ts, storage/queries/outbox-jobs.ts); a queue says only
// what is its own: its table, what a due job carries, its schedule and what else an attempt changes.
import type { Executor, Tx } from '../../storage/executor.js';
import type { DueJobs, OutboxTable } from '../../storage/queries/outbox-jobs.js';

/** A due job as its queue reads it: what sending it needs. */
export interface Job {
  id: string;
  /** Attempts made before this one. */
  attempts: number;
}

/** A job this caller holds: the lease its claim set is the token that lets it record the outcome. */
export type Claimed<J extends Job> = J & { lease: number };

/** What one attempt came to. */
export interface Attempt {
  /** failed: tried again on the queue's schedule unless `permanent`; skipped: nothing was sent and nothing will be (not counted as an attempt). */
  result: 'succeeded' | 'failed' | 'skipped';
  /** Retrying cannot help (the relay refused every recipient, the channel has nowhere to send to). */
  permanent?: boolean;
  /** When the attempt started (deps.now()), and how long it took on the wall clock. */
  attemptedAt: number;
  durationMs: number;
  /** The HTTP status; null for e-mail, or when no answer came. */
  statusCode: number | null;
  /** The start of the receiver's answer, where the queue's log keeps it (webhooks). */
  responseBody?: string | null;
  /** Why it failed or was skipped, as the console shows it (never a secret). */
  error: string | null;
  /** How long the receiver asked us to wait (a Retry-After, Telegram's retry_after), if it did. */
  retryAfterMs?: number | null;
  /** The rest of the run would fail the same way (a mail relay that is down): the run ends after it. */
  endsRun?: boolean;
}

/** Where a job is after an attempt; superseded: another claim (a resend) took it over meanwhile. */
export type JobState = 'succeeded' | 'retrying' | 'failed' | 'skipped' | 'superseded';

export interface OutboxQueue<J extends Job, A extends Attempt = Attempt> {
  /** The table of its jobs (and of its attempt log, storage/queries/outbox-jobs.ts). */
  table: OutboxTable;
  /** Due jobs, in the order they go out (the storage's due query for its table). */
  due(db: Executor, due: DueJobs): Promise<J[]>;
  /** The wait before the next attempt after `attemptsMade` failed ones, or null when the schedule is spent. */
  retryDelayMs(attemptsMade: number, attempt: A, now: number, random: () => number): number | null;
  /** What else an attempt changes, in its unit of work (a webhook endpoint's health). */
  afterAttempt?(trx: Tx, job: J, attempt: A, now: number): Promise<void>;
}
