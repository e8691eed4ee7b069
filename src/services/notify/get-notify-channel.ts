import { AppError } from '../../domain/errors.js';
import { NOTIFY_CHANNEL_ID } from '../../domain/notify-channel.js';
import { notifyChannelInScope } from '../../storage/queries/notify.js';
import type { NotifyChannelsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

/** Any channel by id (the CLI's, which sees every merchant), else not_found. */
export async function getNotifyChannel(deps: Deps, id: string): Promise<NotifyChannelsTable> {
  const row = NOTIFY_CHANNEL_ID.test(id) ? await notifyChannelInScope(deps.db, id, null) : undefined;
  if (!row) throw new AppError('not_found', `no notification channel ${id}`, { param: 'channel' });
  return row;
}
