// One hook on every statement a database object runs outside a unit of work, whichever path it takes:
// Kysely's one executor (plain query builders and compiled statements alike) and SQLite's direct reads.
// Done on the database object the app holds, not by mocking a module: the suite's workers share loaded
// modules between files (vitest.config.ts), so a module mock may never reach the app. countStatements
// (count-statements.ts) and sessionOutage (session-outage.ts) are both built on it.
import type { Kysely } from 'kysely';
import type { DB } from '../../src/storage/schema.js';
import { Database } from '../../src/storage/database.js';

export interface StatementHook {
  /** Before a statement runs, on either path; throwing refuses it as the database would. */
  before?(sql: string): void;
  /** A statement was sent (on the executor's path at once; a direct read once it answered), with its values. */
  ran?(sql: string, parameters: readonly unknown[]): void;
  /** The rows a statement returned. */
  rows?(count: number): void;
}

/** Puts the hook on the database's paths; the function returned takes it off again. */
export function hookStatements(db: Kysely<DB>, hook: StatementHook): () => void {
  const executor = db.getExecutor();
  const original = executor.executeQuery;
  executor.executeQuery = (async (query: Parameters<typeof original>[0]) => {
    hook.before?.(query.sql);
    hook.ran?.(query.sql, query.parameters);
    const result = await original.call(executor, query);
    hook.rows?.(result.rows.length);
    return result;
  }) as typeof executor.executeQuery;
  const direct = (db instanceof Database ? db.directReads : undefined) as
    | { all: (sql: string, parameters: readonly unknown[]) => unknown[] | null }
    | undefined;
  const all = direct?.all;
  if (direct && all) {
    direct.all = (sql, parameters) => {
      hook.before?.(sql);
      const read = all(sql, parameters);
      // null: the direct path could not take it, and the statement goes through the executor instead.
      if (read) {
        hook.ran?.(sql, parameters);
        hook.rows?.(read.length);
      }
      return read;
    };
  }
  return () => {
    executor.executeQuery = original;
    if (direct && all) direct.all = all;
  };
}
