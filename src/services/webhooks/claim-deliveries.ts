// Claiming due webhook deliveries. Several dispatchers (threads of one process, or instances sharing a
// database) may run at once without a leader: a delivery is theirs only once a conditional update has
// set its `locked_until` lease, and the lease doubles as the token that lets them record the outcome.
import type { Executor } from '../../storage/executor.js';
import { dueDeliveries, dueDeliveriesSkipLocked, type DueDelivery } from '../../storage/queries/deliveries.js';
import type { EventType } from '../../storage/schema.js';
import { leaseOutboxRow } from '../../storage/queries/outbox-lease.js';
import type { Deps } from '../deps.js';

export interface ClaimedDelivery {
  id: string;
  eventId: string;
  eventType: EventType;
  endpointId: string;
  url: string;
  secret: string;
  /** The event's stored body, posted byte for byte. */
  payload: string;
  /** Attempts made before this one. */
  attempts: number;
  /** The lease this claim set: the outcome is recorded only while the row still carries it. */
  lease: number;
}

/**
 * A claim outlives the slowest possible attempt (the HTTP timeout) by a margin for recording it; a
 * dispatcher (of webhooks or of merchants' alerts) that dies mid-attempt leaves the delivery to others once this passes.
 */
export function leaseMs(deps: Deps): number {
  return deps.config.webhookTimeoutMs + 15_000;
}

/** Claims up to `limit` due deliveries for `leaseMs`; returns those this caller won. */
export async function claimDueDeliveries(deps: Deps, options: { limit: number; leaseMs: number }): Promise<ClaimedDelivery[]> {
  const now = deps.now();
  const lease = now + options.leaseMs;
  const claim = async (db: Executor, rows: DueDelivery[]) => {
    const won: ClaimedDelivery[] = [];
    for (const row of rows) {
      if (won.length === options.limit) break;
      // The same condition as the select, re-checked atomically: of two dispatchers that both saw this
      // row free, only the first update matches.
      if (!(await leaseOutboxRow(db, 'deliveries', row.id, now, lease))) continue;
      won.push({
        id: row.id,
        eventId: row.event_id,
        eventType: row.type,
        endpointId: row.endpoint_id,
        url: row.url,
        secret: row.secret,
        payload: row.payload,
        attempts: row.attempts,
        lease,
      });
    }
    return won;
  };
  if (deps.db.dialect === 'postgres') {
    // SKIP LOCKED lets concurrent dispatchers pick disjoint rows instead of queueing on each other's.
    return deps.db.runInTransaction(async (trx) => claim(trx, await dueDeliveriesSkipLocked(trx, now, options.limit)));
  }
  // SQLite has one writer at a time; each claim is its own short statement (no read-then-write
  // transaction, which could fail with SQLITE_BUSY when another connection wrote in between). Extra
  // candidates let a dispatcher that loses the first rows to another still fill its batch.
  return claim(deps.db, await dueDeliveries(deps.db, now, options.limit * 3));
}
