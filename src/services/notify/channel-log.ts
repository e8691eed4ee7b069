import { notifyDeliveryPage } from '../../storage/queries/notify.js';
import type { NotifyDeliveriesTable } from '../../storage/schema.js';
import type { LogSource } from '../outbox/delivery-log.js';

/** A channel's alerts, as the console lists them (outbox/delivery-log.ts). */
export const channelLog = (channelId: string): LogSource<'notify_deliveries', NotifyDeliveriesTable> => ({
  table: 'notify_deliveries',
  idPrefix: 'ndl',
  page: (db, before, limit) => notifyDeliveryPage(db, channelId, before, limit),
});
