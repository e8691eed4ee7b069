// Adds a merchant's alert channel. Alerts are written when something happens (enqueue-alerts.ts), to
// the channels active at that moment: a channel added later hears of what happens from then on.
import { SYSTEM_ACTOR, type Actor } from '../../domain/actor.js';
import { newNotifyChannelId, parseNotifyChannel } from '../../domain/notify-channel.js';
import { insertNotifyChannel } from '../../storage/queries/notify.js';
import type { NotifyChannelsTable } from '../../storage/schema.js';
import { writeAudit } from '../audit.js';
import type { Deps } from '../deps.js';
import { getMerchant } from '../merchants/get-merchant.js';
import { channelView, type NotifyChannelView } from './channel-view.js';

export interface AddNotifyChannelInput {
  merchantId: string;
  type?: string;
  language?: string;
  botToken?: string;
  chatId?: string;
  url?: string;
  actor?: Actor;
}

export async function addNotifyChannel(deps: Deps, input: AddNotifyChannelInput): Promise<NotifyChannelView> {
  await getMerchant(deps, input.merchantId);
  const parsed = parseNotifyChannel(input, deps.config.webhookAllowNetworks);
  const now = deps.now();
  const row: NotifyChannelsTable = {
    id: newNotifyChannelId(),
    merchant_id: input.merchantId,
    type: parsed.type,
    language: parsed.language,
    secret: parsed.secret,
    chat_id: parsed.chatId,
    status: 'active',
    created_at: now,
    updated_at: now,
  };
  const view = channelView(row);
  await deps.db.runInTransaction(async (trx) => {
    await insertNotifyChannel(trx, row);
    await writeAudit(trx, {
      actor: input.actor ?? SYSTEM_ACTOR,
      action: 'notify_channel.add',
      subjectType: 'notify_channel',
      subjectId: row.id,
      // The audit log is read by every operator: the secret goes in masked, as lists show it.
      details: {
        merchant: row.merchant_id,
        type: row.type,
        language: row.language,
        secret: view.secret_masked,
        chat_id: row.chat_id,
      },
      now,
    });
  });
  return view;
}
