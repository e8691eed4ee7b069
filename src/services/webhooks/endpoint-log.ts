import { type DeliveryListRow, endpointDeliveryPage } from '../../storage/queries/deliveries.js';
import type { LogSource } from '../outbox/delivery-log.js';

/** An endpoint's deliveries, as the console lists them, each with its event's type (outbox/delivery-log.ts). */
export const endpointLog = (endpointId: string): LogSource<'deliveries', DeliveryListRow> => ({
  table: 'deliveries',
  idPrefix: 'dlv',
  page: (db, before, limit) => endpointDeliveryPage(db, endpointId, before, limit),
});
