import { notifyChannelsInScope } from '../../storage/queries/notify.js';
import type { Deps } from '../deps.js';
import { getMerchant } from '../merchants/get-merchant.js';
import { channelView, type NotifyChannelView } from './channel-view.js';

/** A merchant's active channels (the CLI's `notify list`); an unknown merchant is merchant_not_found. */
export async function listNotifyChannels(deps: Deps, merchantId: string): Promise<NotifyChannelView[]> {
  await getMerchant(deps, merchantId);
  return (await notifyChannelsInScope(deps.db, [merchantId])).map(channelView);
}
