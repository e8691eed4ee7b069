import { EventEmitter } from 'node:events';
import pg from 'pg';
import { PostgresAdapter, sql, type Kysely, type Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../../storage/schema.js';

// Tells live checkout pages that a transaction's status changed. Within one process an emitter
// suffices; across instances on PostgreSQL the change is announced with NOTIFY inside the database
// transaction that made it, so it is heard exactly when (and only if) it commits, by every instance.
// On SQLite another process's announcement reaches no one here: the status watch (status-watch.ts)
// notices its commits through PRAGMA data_version instead.
const CHANNEL = 'qris_status';
const local = new EventEmitter();
local.setMaxListeners(0);

/** Announces a change of the transaction's status; call it inside the transaction that changes it. */
export async function announceStatus(db: Kysely<DB> | Transaction<DB>, trxid: string): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`select pg_notify(${CHANNEL}, ${trxid})`.execute(db);
  } else {
    // SQLite has one writer per process here; readers woken now queue behind the commit.
    setImmediate(() => local.emit(trxid));
  }
}

/** Calls fn whenever trxid's status may have changed; returns the unsubscribe function. */
export function onStatusChange(trxid: string, fn: () => void): () => void {
  local.on(trxid, fn);
  return () => void local.off(trxid, fn);
}

/**
 * Forwards PostgreSQL notifications into this process's emitter over one dedicated connection,
 * reconnecting after failures. `onListening` runs each time LISTEN is in place: notifications sent while
 * the connection was down are lost, so whoever depends on them reads afresh. Returns a stop function.
 */
export function listenForStatus(databaseUrl: string, logger: Logger | null, onListening?: () => void): () => Promise<void> {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;
  const connect = async () => {
    const c = new pg.Client({ connectionString: databaseUrl });
    client = c;
    c.on('notification', (msg) => {
      if (msg.channel === CHANNEL && msg.payload) local.emit(msg.payload);
    });
    c.on('error', (err) => {
      logger?.warn({ err: err.message }, 'status listener connection failed; reconnecting');
      void c.end().catch(() => {});
      schedule();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANNEL}`);
      if (!stopped) onListening?.();
    } catch (err) {
      logger?.warn({ err: (err as Error).message }, 'status listener could not connect; retrying');
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
