import pg from 'pg';
import type { CompiledQuery, Kysely } from 'kysely';
import type { DB } from './schema.js';
import { runInTransaction, type UnitOfWorkDeps } from './unit-of-work.js';

/**
 * Runs a fixed list of statements in one transaction and returns each one's rows: all of them or none.
 *
 * On SQLite this is simply a unit of work (so it joins the group commit). On PostgreSQL every statement
 * of a transaction is a network round trip, and here a round trip costs far more than the statements
 * themselves: measured on this machine, a named one-row statement costs node 40 to 140 µs of CPU and
 * PostgreSQL about as much again, almost all of it waking the other side. BEGIN, three statements and
 * COMMIT were five round trips; this sends the list as ONE simple-protocol message, which PostgreSQL runs
 * as a single implicit transaction (committed after the last statement, rolled back at the first error).
 *
 * The simple protocol carries no parameters, so each value is written into the text as a literal:
 * strings through node-postgres's escapeLiteral, numbers only when they are integers. A statement must
 * therefore depend on nothing but the values (no statement can read what an earlier one returned; use a
 * condition in SQL instead), and it must come from Kysely with every value as a parameter: text holding
 * a quote of its own is refused rather than guessed at.
 */
export async function runAtomically(deps: UnitOfWorkDeps, statements: CompiledQuery[]): Promise<unknown[][]> {
  const pool = pools.get(deps.db);
  if (deps.dialect !== 'postgres' || !pool) {
    return runInTransaction(deps, async (trx) => {
      const rows: unknown[][] = [];
      for (const s of statements) rows.push((await trx.executeQuery(s)).rows as unknown[]);
      return rows;
    });
  }
  const text = statements.map(inlineParameters).join(';\n');
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const result = (await client.query(text)) as pg.QueryResult | pg.QueryResult[];
    const results = Array.isArray(result) ? result : [result];
    if (results.length !== statements.length) throw new Error(`expected ${statements.length} results, got ${results.length}`);
    return results.map((r) => r.rows as unknown[]);
  } catch (err) {
    // The implicit transaction is already rolled back; a connection-level failure discards the client.
    if (!(err instanceof pg.DatabaseError)) broken = err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    client.release(broken);
  }
}

const pools = new WeakMap<Kysely<DB>, pg.Pool>();

/** Called by openDatabase for PostgreSQL: the pool that atomic lists are sent through. */
export function registerPool(db: Kysely<DB>, pool: pg.Pool): void {
  pools.set(db, pool);
}

/** PostgreSQL text for one compiled statement with its $n placeholders replaced by literals. */
export function inlineParameters(query: Pick<CompiledQuery, 'sql' | 'parameters'>): string {
  if (/['\\;]|\$\$|--|\/\*/.test(query.sql)) throw new Error(`refusing to inline values into ${query.sql.slice(0, 80)}`);
  return query.sql.replace(/\$(\d+)/g, (_, n: string) => {
    const i = Number(n) - 1;
    if (i < 0 || i >= query.parameters.length) throw new Error(`placeholder $${n} has no value`);
    return literal(query.parameters[i]);
  });
}

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') {
    if (value.includes('\u0000')) throw new Error('a text value holds a NUL character');
    return pg.escapeLiteral(value);
  }
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`refusing to inline the number ${value}`);
    // In parentheses when negative, so that "x - $1" can never become "x --1" (a comment).
    return value < 0 ? `(${value})` : String(value);
  }
  if (typeof value === 'bigint') return value < 0n ? `(${value})` : value.toString();
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  throw new Error(`cannot inline a ${typeof value}`);
}
