import { merchantScope, type Viewer } from '../../domain/viewer.js';
import { notifyChannelsInScope } from '../../storage/queries/notify.js';
import type { NotifyChannelsTable } from '../../storage/schema.js';
import type { Deps } from '../deps.js';

/** The active channels of the merchants the viewer may see, newest first. */
export async function listVisibleChannels(deps: Deps, viewer: Viewer): Promise<NotifyChannelsTable[]> {
  return notifyChannelsInScope(deps.db, merchantScope(viewer));
}
