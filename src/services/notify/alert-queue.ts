// Merchants' alerts (`notify_deliveries`): one job per alert and active channel, sent by the alert
// dispatcher through the sender of the channel's type (workers/alert-channels/).
import { notifyRetryDelayMs } from '../../domain/notify-retry.js';
import { type DueNotifyDelivery, dueNotifyDeliveries } from '../../storage/queries/notify.js';
import type { Claimed, OutboxQueue } from '../outbox/queue.js';

export type ClaimedAlert = Claimed<DueNotifyDelivery>;

export const alertQueue: OutboxQueue<DueNotifyDelivery> = {
  table: 'notify_deliveries',
  due: dueNotifyDeliveries,
  retryDelayMs: (attemptsMade, attempt, _now, random) =>
    notifyRetryDelayMs(attemptsMade, attempt.retryAfterMs ?? null, random()),
};
