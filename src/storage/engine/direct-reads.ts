import type { JsRowsStatement } from './sqlite-rows.js';

/**
 * Reads on SQLite without Kysely's connection queue. Every query through Kysely acquires the one
 * connection through a promise-based lock and answers through several more promises, although
 * better-sqlite3 runs the statement synchronously: for a status read by id that machinery costs about as
 * much as the statement itself. A reading statement needs the lock only to keep out of a transaction
 * that is open on the connection (a group commit between BEGIN and COMMIT, whose rows are not yet
 * committed); outside one, nothing can interleave with a synchronous read, so it sees exactly what the
 * queued read would have seen. Inside one, or for anything that writes, the caller takes Kysely's path.
 */
export interface DirectReads {
  /** The statement's rows, or null when the caller must go through Kysely (a write, or a transaction is open). */
  all(sql: string, parameters: readonly unknown[]): unknown[] | null;
}

/** The direct reader over SQLite's one connection and the database's statement cache. */
export function directReads(
  connection: { readonly inTransaction: boolean },
  prepare: (sql: string) => JsRowsStatement,
): DirectReads {
  return {
    all(sql, parameters) {
      if (connection.inTransaction) return null;
      const stmt = prepare(sql);
      // `reader` alone would take an INSERT ... RETURNING for a read.
      if (!stmt.reader || !stmt.readonly) return null;
      return stmt.all(parameters) as unknown[];
    },
  };
}
