// How an alert reaches each type of channel. A new type is a file beside these and one line here (and
// its name in NOTIFY_CHANNEL_TYPES, domain/notify-channel.ts: the compiler refuses one without the other).
import { readAlertFacts } from '../../domain/notify-facts.js';
import type { NotifyChannelType } from '../../domain/notify-channel.js';
import type { ClaimedAlert } from '../../services/notify/alert-queue.js';
import { type AlertSender, blank, failed, type Outcome, type SendContext } from './common.js';
import { sendDiscord } from './discord.js';
import { sendEmailAlert } from './email.js';
import { sendTelegram } from './telegram.js';

export type { Outcome, Post, SendContext } from './common.js';

const SENDERS: Record<NotifyChannelType, AlertSender> = {
  telegram: sendTelegram,
  discord: sendDiscord,
  email: sendEmailAlert,
};

/** Sends one claimed alert on its channel; never throws (every outcome is an attempt to record). */
export async function sendAlert(context: SendContext, alert: ClaimedAlert): Promise<Outcome> {
  const facts = readAlertFacts(alert.facts);
  if (facts === null) return failed('the alert cannot be read', { permanent: true });
  try {
    return await SENDERS[alert.type](context, alert, facts);
  } catch (err) {
    return failed(blank(err instanceof Error ? err.message : String(err), alert.secret));
  }
}
