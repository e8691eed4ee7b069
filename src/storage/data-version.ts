import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

/**
 * SQLite's `PRAGMA data_version` of a database's own connection: a number that changes whenever another
 * connection (another process: the CLI, a worker) has committed to the file since the last call. Commits
 * made on this connection do not change it; this process already knows of those. Reading it costs a
 * look at the log's shared index, no page of the database, so a server can ask every second whether
 * anything at all changed before it reads a single row.
 */
type Pragma = (source: string, options: { simple: true }) => unknown;

const connections = new WeakMap<Kysely<DB>, { pragma: Pragma; readonly open: boolean }>();

export function registerDataVersion(db: Kysely<DB>, connection: { pragma: Pragma; readonly open: boolean }): void {
  connections.set(db, connection);
}

/** The current data_version, or null where there is none to ask (PostgreSQL, a closed database). */
export function dataVersion(db: Kysely<DB>): number | null {
  const connection = connections.get(db);
  if (!connection?.open) return null;
  return Number(connection.pragma('data_version', { simple: true }));
}
