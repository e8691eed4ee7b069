// Claiming due alerts, as webhook deliveries are claimed (claim-deliveries.ts): an alert is a
// dispatcher's only once a conditional update has set its lease, and the lease is the token that lets
// it record the outcome. Several worker processes may dispatch at once without a leader.
import type { NotifyLanguage, NotifyChannelType, NotifyKind } from '../../domain/notify-channel.js';
import type { Executor } from '../../storage/executor.js';
import { dueNotifyDeliveries, dueNotifyDeliveriesSkipLocked, dueNotifyDeliveryById, type DueNotifyDelivery } from '../../storage/queries/notify.js';
import { leaseOutboxRow } from '../../storage/queries/outbox-lease.js';
import type { Deps } from '../deps.js';

export interface ClaimedAlert {
  id: string;
  channelId: string;
  merchantId: string;
  kind: NotifyKind;
  /** The stored facts (JSON). */
  facts: string;
  type: NotifyChannelType;
  language: NotifyLanguage;
  secret: string | null;
  chatId: string | null;
  /** Attempts made before this one. */
  attempts: number;
  lease: number;
}

function claimed(row: DueNotifyDelivery, lease: number): ClaimedAlert {
  return {
    id: row.id,
    channelId: row.channel_id,
    merchantId: row.merchant_id,
    kind: row.kind,
    facts: row.facts,
    type: row.type,
    language: row.language,
    secret: row.secret,
    chatId: row.chat_id,
    attempts: Number(row.attempts),
    lease,
  };
}

/** Claims up to `limit` due alerts for `leaseMs`; returns those this caller won. */
export async function claimDueAlerts(deps: Deps, options: { limit: number; leaseMs: number }): Promise<ClaimedAlert[]> {
  const now = deps.now();
  const lease = now + options.leaseMs;
  const claim = async (db: Executor, rows: DueNotifyDelivery[]) => {
    const won: ClaimedAlert[] = [];
    for (const row of rows) {
      if (won.length === options.limit) break;
      if (await leaseOutboxRow(db, 'notify_deliveries', row.id, now, lease)) won.push(claimed(row, lease));
    }
    return won;
  };
  if (deps.db.dialect === 'postgres') {
    return deps.db.runInTransaction(async (trx) => claim(trx, await dueNotifyDeliveriesSkipLocked(trx, now, options.limit)));
  }
  // SQLite: each claim its own short statement (see claim-deliveries.ts); extra candidates let a
  // dispatcher that loses the first rows to another still fill its batch.
  return claim(deps.db, await dueNotifyDeliveries(deps.db, now, options.limit * 3));
}

/** Claims one alert by id if it is due and free (the "Send test" button's, sent at once); null otherwise. */
export async function claimAlert(deps: Deps, id: string, leaseMs: number): Promise<ClaimedAlert | null> {
  const now = deps.now();
  const row = await dueNotifyDeliveryById(deps.db, id, now);
  if (!row || !(await leaseOutboxRow(deps.db, 'notify_deliveries', row.id, now, now + leaseMs))) return null;
  return claimed(row, now + leaseMs);
}
