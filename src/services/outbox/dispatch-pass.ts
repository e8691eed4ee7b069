// One pass of an outbox dispatcher: a run of its queue (run-due.ts) with the log lines of its failures.
// The webhook and alert dispatchers are this with their queue and their sender; their loops
// (workers/outbox-worker.ts) run passes, and the console's "Send test" sends one job through the same.
import { isOutage } from '../../rounds/outage-backoff.js';
import type { Deps } from '../deps.js';
import type { Attempt, Claimed, Job, JobState, OutboxQueue } from './queue.js';
import { leaseMs } from './lease-ms.js';
import { runDue, type Send } from './run-due.js';

export const DEFAULT_CONCURRENCY = 8;

export interface PassReport {
  claimed: number;
  states: Array<JobState | 'unrecorded'>;
}

/** How a dispatcher speaks of its jobs in the log. */
export interface PassLog<J extends Job, A extends Attempt> {
  /** 'webhook', 'alert': the log says "<noun> attempt failed". */
  noun: string;
  /** The fields a log line names a job by. */
  fields(job: Claimed<J>, attempt: A | null): Record<string, unknown>;
}

/** One pass: claims what is due (up to the concurrency) and sends it all. Tests drive time with it. */
export async function dispatchPass<J extends Job, A extends Attempt>(
  deps: Deps,
  queue: OutboxQueue<J, A>,
  send: Send<J, A>,
  log: PassLog<J, A>,
  options: { concurrency?: number; random?: () => number },
): Promise<PassReport> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const { claimed, reports } = await runDue(deps, queue, send, {
    concurrency,
    leaseMs: leaseMs(deps),
    random: options.random,
  });
  for (const r of reports) {
    if (r.state === 'unrecorded') {
      // During a database outage this is expected, and the job is not lost: said as a warning.
      const level = isOutage(r.error) ? 'warn' : 'error';
      deps.logger[level](
        { err: r.error, ...log.fields(r.job, null) },
        `could not record ${article(log.noun)} attempt; it is sent again once its claim expires`,
      );
    } else if (r.state !== 'succeeded') {
      deps.logger.warn({ ...log.fields(r.job, r.attempt), state: r.state }, `${log.noun} attempt failed`);
    }
  }
  return { claimed, states: reports.map((r) => r.state) };
}

const article = (noun: string) => `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`;
