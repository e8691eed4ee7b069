import pg from 'pg';
import { sql } from 'kysely';
import { onPostgres } from '../engine/key-list.js';
import type { Logger } from 'pino';
import type { Executor } from '../executor.js';

// Status changes announced through PostgreSQL: NOTIFY inside the database transaction that made the
// change (heard exactly when, and only if, it commits, by every instance) and LISTEN on one dedicated
// connection.
export const STATUS_CHANNEL = 'qris_status';

/** Whether this database can announce to other processes (PostgreSQL's NOTIFY); SQLite cannot. */
export function canNotify(db: Executor): boolean {
  return onPostgres(db);
}

/** NOTIFY that the transaction's status changed (PostgreSQL only): sent when `db`'s transaction commits. */
export async function notifyStatus(db: Executor, trxid: string): Promise<void> {
  await sql`select pg_notify(${STATUS_CHANNEL}, ${trxid})`.execute(db);
}

/** NOTIFY of several transactions in one statement, one notification each, in their order. */
export async function notifyStatuses(db: Executor, trxids: readonly string[]): Promise<void> {
  if (trxids.length === 1) return notifyStatus(db, trxids[0]!);
  if (trxids.length === 0) return;
  await sql`select pg_notify(${STATUS_CHANNEL}, t.id) from unnest(${[...trxids]}::text[]) with ordinality as t(id, n) order by t.n`.execute(
    db,
  );
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
      if (msg.channel === STATUS_CHANNEL && msg.payload) onNotified(msg.payload);
    });
    c.on('error', (err) => {
      logger.warn({ err: err.message }, 'status listener connection failed; reconnecting');
      void c.end().catch(() => {});
      schedule();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${STATUS_CHANNEL}`);
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
