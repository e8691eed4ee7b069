// Counts the statements a database runs, for tests that hold code to a number of queries.
import type { Kysely } from 'kysely';
import { onTestFinished } from 'vitest';
import type { DB } from '../../src/storage/schema.js';
import { Database } from '../../src/storage/database.js';

/**
 * Counts the statements a database runs, whichever path they take (SQLite's direct reads or Kysely).
 * Called inside a test, which takes the counter off again when it ends.
 */
export function countStatements(db: Kysely<DB>): { readonly count: number; readonly texts: ReadonlySet<string> } {
  let count = 0;
  const texts = new Set<string>();
  const original = db.executeQuery.bind(db);
  db.executeQuery = ((query: Parameters<typeof original>[0]) => {
    count += 1;
    texts.add('sql' in query ? query.sql : query.compile().sql);
    return original(query);
  }) as typeof db.executeQuery;
  const direct = (db instanceof Database ? db.directReads : undefined) as
    | { all: (sql: string, parameters: readonly unknown[]) => unknown[] | null }
    | undefined;
  const all = direct?.all;
  if (direct && all) {
    direct.all = (sql, parameters) => {
      const rows = all(sql, parameters);
      if (rows) {
        count += 1;
        texts.add(sql);
      }
      return rows;
    };
  }
  onTestFinished(() => {
    db.executeQuery = original;
    if (direct && all) direct.all = all;
  });
  return {
    get count() {
      return count;
    },
    texts,
  };
}
