// The outcome of one attempt, for every queue: the attempt in the queue's log, the job's next state
// while the worker still holds its claim (done, tried again after the queue's backoff, or given up when
// its schedule is spent), and what else the queue changes with it, all in one unit of work.
import { insertOutboxAttempt, recordOutboxOutcome } from '../../storage/queries/outbox-jobs.js';
import type { Deps } from '../deps.js';
import type { Attempt, Claimed, Job, JobState, OutboxQueue } from './queue.js';

export async function recordAttempt<J extends Job, A extends Attempt>(
  deps: Deps,
  queue: OutboxQueue<J, A>,
  job: Claimed<J>,
  attempt: A,
  random: () => number = Math.random,
): Promise<{ state: JobState; nextAttemptAt: number | null }> {
  const now = deps.now();
  const retried = attempt.result === 'failed' && !attempt.permanent;
  const delay = retried ? queue.retryDelayMs(job.attempts + 1, attempt, now, random) : null;
  const state: Exclude<JobState, 'superseded'> =
    attempt.result === 'failed'
      ? delay === null
        ? 'failed'
        : 'retrying'
      : attempt.result === 'succeeded'
        ? 'succeeded'
        : 'skipped';
  const nextAttemptAt = delay === null ? null : now + delay;
  return deps.db.runInTransaction(async (trx) => {
    // A skip sent nothing: it is no attempt to log.
    if (queue.table !== 'emails' && attempt.result !== 'skipped') {
      await insertOutboxAttempt(trx, queue.table, {
        delivery_id: job.id,
        attempted_at: attempt.attemptedAt,
        duration_ms: attempt.durationMs,
        succeeded: attempt.result === 'succeeded' ? 1 : 0,
        status_code: attempt.statusCode,
        response_body: attempt.responseBody ?? null,
        error: attempt.error,
      });
    }
    // Only the holder of the claim decides; a resend in the meantime has taken it over.
    const decided = await recordOutboxOutcome(trx, queue.table, job.id, job.lease, {
      state,
      nextAttemptAt,
      attemptedAt: attempt.attemptedAt,
      statusCode: attempt.statusCode,
      error: attempt.error,
      now,
    });
    // What the queue keeps beside (a webhook endpoint's health) follows every attempt made, superseded or not.
    if (queue.afterAttempt && attempt.result !== 'skipped') await queue.afterAttempt(trx, job, attempt, now);
    return decided ? { state, nextAttemptAt } : { state: 'superseded' as const, nextAttemptAt: null };
  });
}
