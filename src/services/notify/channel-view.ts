import { isoTime } from '../../domain/iso-time.js';
import { maskSecret } from '../../domain/notify-channel.js';
import type { NotifyChannelsTable } from '../../storage/schema.js';

/** A channel as the CLI and the console show it: its secret masked, always. */
export interface NotifyChannelView {
  id: string;
  merchant_id: string;
  type: NotifyChannelsTable['type'];
  language: NotifyChannelsTable['language'];
  /** The bot token or the Discord URL, masked; empty for e-mail. */
  secret_masked: string;
  chat_id: string | null;
  status: NotifyChannelsTable['status'];
  created_at: string;
}

export function channelView(row: NotifyChannelsTable): NotifyChannelView {
  return {
    id: row.id,
    merchant_id: row.merchant_id,
    type: row.type,
    language: row.language,
    secret_masked: maskSecret(row.type, row.secret),
    chat_id: row.chat_id,
    status: row.status,
    created_at: isoTime(row.created_at),
  };
}
