// One run of a queue: claim what is due, hand each job to the queue's sender, record each attempt. The
// webhook dispatcher, the alert dispatcher and the mailer are this run with their own sender.
import type { Deps } from '../deps.js';
import { claimDue } from './claim-due.js';
import type { Attempt, Claimed, Job, JobState, OutboxQueue } from './queue.js';
import { recordAttempt } from './record-attempt.js';

export interface RunOptions {
  /** Jobs in flight at once (and claimed per round). */
  concurrency: number;
  /** How long a claim holds a job; must exceed the longest attempt. */
  leaseMs: number;
  /** Jobs handled per run at most (one round of `concurrency` unless said). */
  maxPerRun?: number;
  /** SQLite: candidates read per claim (claim-due.ts). */
  candidates?: number;
  /** Random numbers for the retry jitter (tests pin them). */
  random?: () => number;
  /** Asked before each round; false ends the run there (the worker is stopping). */
  keepGoing?: () => boolean;
}

/** What one claimed job came to; `unrecorded` when its outcome could not be stored (`error` says why). */
export interface JobReport<J extends Job, A extends Attempt> {
  job: Claimed<J>;
  attempt: A | null;
  state: JobState | 'unrecorded';
  nextAttemptAt: number | null;
  error?: unknown;
}

/** Never throws for a job: a send is expected to describe every failure as an attempt. */
export type Send<J extends Job, A extends Attempt> = (job: Claimed<J>) => Promise<A>;

export async function runDue<J extends Job, A extends Attempt>(
  deps: Deps,
  queue: OutboxQueue<J, A>,
  send: Send<J, A>,
  options: RunOptions,
): Promise<{ claimed: number; reports: JobReport<J, A>[] }> {
  const maxPerRun = options.maxPerRun ?? options.concurrency;
  const reports: JobReport<J, A>[] = [];
  let claimed = 0;
  while (claimed < maxPerRun) {
    if (options.keepGoing && !options.keepGoing()) break;
    const limit = Math.min(options.concurrency, maxPerRun - claimed);
    const jobs = await claimDue(deps, queue, { limit, leaseMs: options.leaseMs, candidates: options.candidates });
    if (jobs.length === 0) break;
    claimed += jobs.length;
    // Every attempt of the round is awaited, failed or not, so no more than `concurrency` are ever in
    // flight. One whose outcome could not be stored (database gone) keeps its claim until the lease
    // ends and is then attempted again: at least once, never lost.
    const round = await Promise.allSettled(
      jobs.map(async (job) => {
        const attempt = await send(job);
        return { attempt, ...(await recordAttempt(deps, queue, job, attempt, options.random)) };
      }),
    );
    for (const [i, r] of round.entries()) {
      const job = jobs[i]!;
      reports.push(
        r.status === 'fulfilled'
          ? { job, ...r.value }
          : { job, attempt: null, state: 'unrecorded', nextAttemptAt: null, error: r.reason },
      );
    }
    if (round.some((r) => r.status === 'fulfilled' && r.value.attempt.endsRun)) break;
    // Fewer than asked for: nothing more is due now (or others hold it).
    if (jobs.length < limit) break;
  }
  return { claimed, reports };
}
