// Counts the statements a database runs, for tests that hold code to a number of queries.
import type { Kysely } from 'kysely';
import { onTestFinished } from 'vitest';
import type { DB } from '../../src/storage/schema.js';
import { hookStatements } from './statement-hook.js';

/**
 * Counts the statements a database runs outside a unit of work, whichever path they take (SQLite's direct
 * reads, a compiled statement or a plain query builder: all of Kysely's go through its one executor), and
 * the rows they return. Called inside a test, which takes the counter off again when it ends.
 */
export function countStatements(db: Kysely<DB>): {
  readonly count: number;
  readonly rows: number;
  readonly texts: ReadonlySet<string>;
} {
  let count = 0;
  let rows = 0;
  const texts = new Set<string>();
  const restore = hookStatements(db, {
    ran(sql) {
      count += 1;
      texts.add(sql);
    },
    rows(n) {
      rows += n;
    },
  });
  onTestFinished(restore);
  return {
    get count() {
      return count;
    },
    /** The rows those statements returned. */
    get rows() {
      return rows;
    },
    texts,
  };
}
