import { AppError } from '../../domain/errors.js';
import { insertNotifyDeliveries, merchantNameOf } from '../../storage/queries/notify.js';
import type { NotifyChannelsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';
import { newAlertRow } from './new-alert-row.js';

/**
 * The "Send test" button's alert: queued to this one channel, due now, through the same outbox, sender
 * and attempt log as every other alert, so a test that arrives proves the real path works.
 */
export async function queueTestAlert(deps: Deps, channel: NotifyChannelsTable): Promise<string> {
  if (channel.status !== 'active')
    throw new AppError('invalid_parameter', `notification channel ${channel.id} is removed`, { param: 'channel' });
  const now = deps.now();
  const merchantName = (await merchantNameOf(deps.db, channel.merchant_id)) ?? channel.merchant_id;
  const row = newAlertRow(channel.id, channel.merchant_id, { kind: 'test', merchantName, at: now }, null, now);
  await deps.db.runInTransaction((trx) => insertNotifyDeliveries(trx, [row]));
  return row.id;
}
