import { PostgresAdapter, type RawBuilder, sql } from 'kysely';

// The two halves of a batched read by a list of keys that must stay one index lookup per key whatever
// PostgreSQL's statistics say (README.md, "Lists of keys on PostgreSQL"): whether the database is
// PostgreSQL, which takes the lateral form, and the keys as a VALUES list to put in a CTE.

/** Whether `db` is PostgreSQL (the engine's only other database is SQLite). */
export function onPostgres(db: { getExecutor(): { readonly adapter: unknown } }): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * The rows as `(values (a, b), (c, d))`, each value a parameter unless it is a fragment already (a
 * `cast(... as bigint)`, where PostgreSQL would otherwise take a number parameter as text). For a CTE
 * that names its columns: `db.with('k(a, b)', () => valuesList<{ a: string; b: string }>(rows))`.
 */
export function valuesList<R>(rows: readonly (readonly unknown[])[]): RawBuilder<R> {
  return sql<R>`(values ${sql.join(rows.map((row) => sql`(${sql.join([...row])})`))})`;
}
