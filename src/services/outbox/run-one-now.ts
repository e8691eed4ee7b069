import type { Deps } from '../deps.js';
import { claimDue } from './claim-due.js';
import type { Attempt, Claimed, Job, JobState, OutboxQueue } from './queue.js';
import { recordAttempt } from './record-attempt.js';
import type { RunOptions, Send } from './run-due.js';

/** Attempts one job now if it is due and no worker holds it (the console's "Send test"); null when it was not this caller's. */
export async function runOneNow<J extends Job, A extends Attempt>(
  deps: Deps,
  queue: OutboxQueue<J, A>,
  send: Send<J, A>,
  id: string,
  options: Pick<RunOptions, 'leaseMs' | 'random'>,
): Promise<{ job: Claimed<J>; attempt: A; state: JobState } | null> {
  const [job] = await claimDue(deps, queue, { limit: 1, leaseMs: options.leaseMs, only: id });
  if (job === undefined) return null;
  const attempt = await send(job);
  const { state } = await recordAttempt(deps, queue, job, attempt, options.random);
  return { job, attempt, state };
}
