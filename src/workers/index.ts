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

/**
 * Every background job of a `worker` or `all` process. Each is safe to run in several processes at
 * once (conditional updates, row claims), so instances need no leader.
 */
export function startBackgroundWork(deps: Deps): Worker {
  const workers: Worker[] = [startExpirySweeper(deps, deps.config.sweepIntervalMs)];
  workers.push(startMailer(deps));
  workers.push(startDailyReports(deps));
  workers.push(startWebhookDispatcher(deps));
  workers.push(startNotifyDispatcher(deps));
  // Each payment source kind's poller (a feed's, a SNAP acquirer's queries).
  for (const kind of sourceKinds) if (kind.worker) workers.push(kind.worker(deps));
  workers.push(startRefundResolver(deps));
  workers.push(startLoginHousekeeping(deps));
  const backups = startBackupScheduler(deps);
  if (backups) workers.push(backups);
  return {
    async stop() {
      await Promise.all(workers.map((w) => w.stop()));
    },
  };
}
