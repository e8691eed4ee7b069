import pg from 'pg';
import { type Kysely, sql } from 'kysely';
import { onPostgres } from '../engine/key-list.js';
import type { Logger } from 'pino';
import { prepareRowsQuery } from '../engine/prepared-rows.js';
import type { Executor } from '../executor.js';
import type { DB, EventsTable } from '../schema.js';

// Status changes announced through PostgreSQL: NOTIFY inside the database transaction that made the
// change (heard exactly when, and only if, it commits, by every instance) and LISTEN on one dedicated
// connection.
const CHANNEL = 'qris_status';

/** Whether this database can announce to other processes (PostgreSQL's NOTIFY); SQLite cannot. */
export function canNotify(db: Executor): boolean {
  return onPostgres(db);
}

/** NOTIFY that the transaction's status changed (PostgreSQL only): sent when `db`'s transaction commits. */
export async function notifyStatus(db: Executor, trxid: string): Promise<void> {
  await sql`select pg_notify(${CHANNEL}, ${trxid})`.execute(db);
}

/** NOTIFY of several transactions in one statement, one notification each, in their order. */
export async function notifyStatuses(db: Executor, trxids: readonly string[]): Promise<void> {
  if (trxids.length === 1) return notifyStatus(db, trxids[0]!);
  if (trxids.length === 0) return;
  await sql`select pg_notify(${CHANNEL}, t.id) from unnest(${[...trxids]}::text[]) with ordinality as t(id, n) order by t.n`.execute(
    db,
  );
}

// A batch's events and the NOTIFY of the transactions it changed, in one statement: a data-modifying CTE
// runs whether or not the query reads it, and a notification is sent at commit whatever statement of the
// transaction queued it, so this is the two statements it replaces with one round trip fewer (a batch of
// payment reports that pays something).
const eventsInsertNotifying = prepareRowsQuery(
  (db: Kysely<DB>, rows: readonly EventsTable[], p: { trxids: readonly string[] }) =>
    db
      .with('e', (qb) => qb.insertInto('events').values([...rows]))
      // A function in FROM aliased `t` names its value column `t` too (WITH ORDINALITY adds `ordinality`).
      .selectFrom(sql<{ t: string; ordinality: number }>`unnest(cast(${p.trxids} as text[])) with ordinality`.as('t'))
      .select(sql<string>`pg_notify(${sql.lit(CHANNEL)}, t.t)`.as('n'))
      .orderBy('t.ordinality'),
);

/**
 * Inserts the events and, on PostgreSQL, NOTIFYs the transactions in the same statement, one notification
 * each, in their order: true when it did (else the caller announces them itself: SQLite, or no events).
 */
export async function insertEventsNotifying(
  db: Executor,
  events: readonly EventsTable[],
  trxids: readonly string[],
): Promise<boolean> {
  if (events.length === 0 || trxids.length === 0 || !canNotify(db)) return false;
  await eventsInsertNotifying.execute(db, events, { trxids: [...trxids] });
  return true;
}

/**
 * Hands every transaction id notified on the status channel to `onNotified`, over one dedicated
 * connection, reconnecting after failures. `onListening` runs each time LISTEN is in place: notifications
 * sent while the connection was down are lost, so whoever depends on them reads afresh. Returns a stop
 * function.
 */
export function listenForStatusNotifications(
  databaseUrl: string,
  logger: Logger,
  onNotified: (trxid: string) => void,
  onListening?: () => void,
): () => Promise<void> {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;
  const connect = async () => {
    const c = new pg.Client({ connectionString: databaseUrl });
    client = c;
    c.on('notification', (msg) => {
      if (msg.channel === CHANNEL && msg.payload) onNotified(msg.payload);
    });
    c.on('error', (err) => {
      logger.warn({ err: err.message }, 'status listener connection failed; reconnecting');
      void c.end().catch(() => {});
      schedule();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANNEL}`);
      if (!stopped) onListening?.();
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'status listener could not connect; retrying');
      void c.end().catch(() => {});
      schedule();
    }
  };
  const schedule = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = null;
      void connect();
    }, 1000);
    retry.unref();
  };
  void connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}
