// Claiming due webhook deliveries. Several dispatchers (threads of one process, or instances sharing a
// database) may run at once without a leader: a delivery is theirs only once a conditional update has
// set its `locked_until` lease, and the lease doubles as the token that lets them record the outcome.
import { sql, type Kysely, type Transaction } from 'kysely';
import { runInTransaction } from '../../storage/unit-of-work.js';
import type { DB, EventType } from '../../storage/schema.js';
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

function dueQuery(db: Kysely<DB> | Transaction<DB>, now: number, limit: number) {
  return (
    db
      .selectFrom('deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
      .select(['d.id', 'd.event_id', 'd.endpoint_id', 'd.attempts', 'e.type', 'e.payload', 'w.url', 'w.secret'])
      .where('d.status', '=', 'pending')
      .where('d.next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('d.locked_until', 'is', null), eb('d.locked_until', '<=', now)]))
      .where('w.status', '!=', 'disabled')
      // Per endpoint and transaction, events go out in the order they happened: a delivery waits while
      // an earlier event of its transaction is still pending for the same endpoint (retrying included).
      // Both lookups are index probes (events by transaction, deliveries by event and endpoint).
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('events as e2')
              .innerJoin('deliveries as d2', 'd2.event_id', 'e2.id')
              .select(sql<number>`1`.as('one'))
              .whereRef('e2.transaction_id', '=', 'e.transaction_id')
              .whereRef('d2.endpoint_id', '=', 'd.endpoint_id')
              .where('d2.status', '=', 'pending')
              .where((eb) =>
                eb.or([
                  eb('e2.created_at', '<', eb.ref('e.created_at')),
                  eb.and([eb('e2.created_at', '=', eb.ref('e.created_at')), eb('e2.id', '<', eb.ref('e.id'))]),
                ]),
              ),
          ),
        ),
      )
      .orderBy('d.next_attempt_at')
      .orderBy('e.created_at')
      .limit(limit)
  );
}

/** Claims up to `limit` due deliveries for `leaseMs`; returns those this caller won. */
export async function claimDueDeliveries(deps: Deps, options: { limit: number; leaseMs: number }): Promise<ClaimedDelivery[]> {
  const now = deps.now();
  const lease = now + options.leaseMs;
  const claim = async (db: Kysely<DB> | Transaction<DB>, rows: Awaited<ReturnType<ReturnType<typeof dueQuery>['execute']>>) => {
    const won: ClaimedDelivery[] = [];
    for (const row of rows) {
      if (won.length === options.limit) break;
      // The same condition as the select, re-checked atomically: of two dispatchers that both saw this
      // row free, only the first update matches.
      const result = await db
        .updateTable('deliveries')
        .set({ locked_until: lease })
        .where('id', '=', row.id)
        .where('status', '=', 'pending')
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) continue;
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
  if (deps.dialect === 'postgres') {
    // SKIP LOCKED lets concurrent dispatchers pick disjoint rows instead of queueing on each other's.
    return runInTransaction(deps, async (trx) => claim(trx, await dueQuery(trx, now, options.limit).forUpdate('d').skipLocked().execute()));
  }
  // SQLite has one writer at a time; each claim is its own short statement (no read-then-write
  // transaction, which could fail with SQLITE_BUSY when another connection wrote in between). Extra
  // candidates let a dispatcher that loses the first rows to another still fill its batch.
  return claim(deps.db, await dueQuery(deps.db, now, options.limit * 3).execute());
}
