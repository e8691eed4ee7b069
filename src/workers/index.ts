import type { Deps } from '../services/deps.js';
import { sourceKinds } from '../payment-sources/kinds.js';
import { startBackupScheduler } from './backup-scheduler.js';
import { startDailyReports } from './daily-reports.js';
import { startExpirySweeper } from './expiry-sweeper.js';
import { startLoginHousekeeping } from './login-housekeeping.js';
import { startMailer } from './mailer.js';
import { startNotifyDispatcher } from './notify-dispatcher.js';
import { startRefundResolver } from './refund-resolver.js';
import { startWebhookDispatcher } from './webhook-dispatcher.js';

import type { Worker } from '../rounds/run-every.js';

export interface BackgroundWork extends Worker {
  /** The jobs started, by name, in the order they started (what a `worker` or `all` process runs). */
  readonly jobs: readonly string[];
}

/**
 * Every background job of a `worker` or `all` process. Each is safe to run in several processes at
 * once (conditional updates, row claims), so instances need no leader.
 */
export function startBackgroundWork(deps: Deps): BackgroundWork {
  const started: Array<[string, Worker]> = [['expiry-sweeper', startExpirySweeper(deps, deps.config.sweepIntervalMs)]];
  started.push(['mailer', startMailer(deps)]);
  started.push(['daily-reports', startDailyReports(deps)]);
  started.push(['webhook-dispatcher', startWebhookDispatcher(deps)]);
  started.push(['notify-dispatcher', startNotifyDispatcher(deps)]);
  // Each payment source kind's poller (a feed's, a SNAP acquirer's queries).
  for (const kind of sourceKinds) if (kind.worker) started.push([`${kind.type}-poller`, kind.worker(deps)]);
  started.push(['refund-resolver', startRefundResolver(deps)]);
  started.push(['login-housekeeping', startLoginHousekeeping(deps)]);
  const backups = startBackupScheduler(deps);
  if (backups) started.push(['backup-scheduler', backups]);
  return {
    jobs: started.map(([name]) => name),
    async stop() {
      await Promise.all(started.map(([, w]) => w.stop()));
    },
  };
}
