import { SYSTEM_ACTOR, type Actor } from '../../domain/actor.js';
import { disableNotifyChannel } from '../../storage/queries/notify.js';
import { failPendingJobs } from '../../storage/queries/outbox-jobs.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { channelView, type NotifyChannelView } from './channel-view.js';
import { getNotifyChannel } from './get-notify-channel.js';

/**
 * Removes a channel: it gets no more alerts, and those still waiting are closed as failed. Its rows stay
 * (the alerts and attempts are history the merchant may ask about). Removing a removed one changes nothing.
 */
export async function removeNotifyChannel(
  deps: Deps,
  id: string,
  actor: Actor = SYSTEM_ACTOR,
): Promise<NotifyChannelView & { cancelled_deliveries: number }> {
  const channel = await getNotifyChannel(deps, id);
  const now = deps.now();
  const cancelled = await deps.db.runInTransaction(async (trx) => {
    if (!(await disableNotifyChannel(trx, channel.id, now))) return 0;
    const closed = await failPendingJobs(trx, 'notify_deliveries', 'channel_id', channel.id);
    await writeAudit(trx, {
      actor,
      action: 'notify_channel.remove',
      subjectType: 'notify_channel',
      subjectId: channel.id,
      details: { cancelled: closed },
      now,
    });
    return closed;
  });
  return { ...channelView(await getNotifyChannel(deps, id)), cancelled_deliveries: cancelled };
}
