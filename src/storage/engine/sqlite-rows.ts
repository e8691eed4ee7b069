import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteStatement } from 'kysely';

/**
 * A reading statement whose rows are built in JavaScript. better-sqlite3 builds each row object from C++,
 * defining every column as a property one by one; asked for arrays (raw mode), it only fills an array,
 * and a function compiled once per statement turns that into an object literal of a fixed shape.
 * Measured here for a 19-column transaction row: 5.9 µs a read instead of 7.4, and 45 µs instead of 85
 * for a page of 20.
 *
 * The rows are the same objects as before: every column an own property in select order, a later column
 * of the same name replacing an earlier one (as with better-sqlite3's own rows). Statements that do not
 * read, or whose columns cannot be written as plain keys, are returned untouched.
 */
/** Kysely's statement, with better-sqlite3's `readonly` (false for a write, RETURNING or not). */
export type JsRowsStatement = SqliteStatement & { readonly readonly: boolean };

export function withJsRows(stmt: BetterSqlite3.Statement): JsRowsStatement {
  if (!stmt.reader) return stmt;
  const names = stmt.columns().map((c) => c.name);
  if (names.length === 0 || names.includes('__proto__')) return stmt;
  // Keys are quoted by JSON.stringify, so a column name can never become code.
  const build = new Function('r', `return { ${names.map((n, i) => `${JSON.stringify(n)}: r[${i}]`).join(', ')} };`) as (
    r: unknown[],
  ) => unknown;
  const raw = stmt.raw(true);
  return {
    reader: true,
    readonly: stmt.readonly,
    all: (parameters) => (raw.all(parameters as unknown[]) as unknown[][]).map(build),
    run: (parameters) => raw.run(parameters as unknown[]),
    *iterate(parameters) {
      for (const row of raw.iterate(parameters as unknown[])) yield build(row as unknown[]);
    },
  };
}
