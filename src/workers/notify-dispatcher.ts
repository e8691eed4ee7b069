// The alert dispatcher's loop: passes of alerts/dispatch.ts every WEBHOOK_DISPATCH_INTERVAL_MS, in every
// worker process beside the webhook dispatcher.
import { alertMailSender, dispatchDueAlerts, type NotifyDispatchOptions } from '../alerts/dispatch.js';
import type { Deps } from '../services/deps.js';
import { DEFAULT_CONCURRENCY } from '../services/outbox/dispatch-pass.js';
import type { Worker } from '../rounds/run-every.js';
import { runPasses } from './outbox-worker.js';

/**
 * Runs passes every WEBHOOK_DISPATCH_INTERVAL_MS; after a full pass it goes again at once, so a backlog
 * drains at the concurrency's pace. A failing pass is logged and retried at the next tick; while the
 * database is unavailable the dispatcher backs off (outage-backoff.ts).
 */
export function startNotifyDispatcher(
  deps: Deps,
  options: Partial<NotifyDispatchOptions> & { intervalMs?: number } = {},
): Worker {
  const intervalMs = options.intervalMs ?? deps.config.webhookDispatchIntervalMs;
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const ownSender = options.mail === undefined;
  const mail = ownSender ? alertMailSender(deps) : (options.mail ?? null);
  const loop = runPasses(
    deps,
    intervalMs,
    concurrency,
    () => dispatchDueAlerts(deps, { ...options, concurrency, mail }),
    'alert dispatch failed',
  );
  return {
    async stop() {
      await loop.stop();
      // Its SMTP connection would otherwise hold the process until the socket's timeout.
      if (ownSender) mail?.close();
    },
  };
}
