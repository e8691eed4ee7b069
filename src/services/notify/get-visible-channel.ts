import { AppError } from '../../domain/errors.js';
import { NOTIFY_CHANNEL_ID } from '../../domain/notify-channel.js';
import { merchantScope, type Viewer } from '../../domain/viewer.js';
import { notifyChannelInScope } from '../../storage/queries/notify.js';
import type { NotifyChannelsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

/** The channel if the viewer may see it; another merchant's is not found, exactly as an unknown one. */
export async function getVisibleChannel(deps: Deps, viewer: Viewer, id: string): Promise<NotifyChannelsTable> {
  const row = NOTIFY_CHANNEL_ID.test(id) ? await notifyChannelInScope(deps.db, id, merchantScope(viewer)) : undefined;
  if (!row) throw new AppError('not_found', 'no such notification channel', { param: 'channel' });
  return row;
}
