import { createQueryId, type Compilable, type CompiledQuery, type Kysely } from 'kysely';
import { Database } from '../database.js';

/**
 * A Kysely query built and compiled once per database, then run with fresh parameter values. Building
 * (builder objects, compile, freezing) costs about as much as a primary-key lookup itself, on every
 * request; the SQL text never changes, only the values do.
 *
 * The definition is one Kysely query for both dialects: it is compiled lazily for each database (keyed
 * weakly, since tests open many databases; see compileScope), so SQLite gets `?` and PostgreSQL `$1`.
 *
 * Each value the caller supplies is read from `p` in the definition, which hands out a distinct
 * placeholder object per name. Compilation then finds where each placeholder landed among the
 * parameters, so the order of values is taken from Kysely itself, never assumed. A placeholder that
 * does not come out as exactly one parameter (inlined, dropped, or used twice) is an error at first use,
 * not a query run with values in the wrong places. Parameters that are not placeholders (literals in
 * the definition) are kept as compiled. The definition must depend on nothing but `db` and `p`.
 */
export interface PreparedQuery<D, P, O> {
  execute(db: Kysely<D>, values: P): Promise<O[]>;
  /** The first row or undefined, like Kysely's executeTakeFirst. */
  executeTakeFirst(db: Kysely<D>, values: P): Promise<O | undefined>;
}

/** Stands for a caller's value, by name, while a definition is compiled. */
export class Placeholder {
  constructor(readonly name: string) {
    Object.freeze(this);
  }
}

/** The `p` a definition reads its values from: one Placeholder per name read, listed in `placeholders`. */
export function placeholderSource<P>(): { p: P; placeholders: ReadonlyMap<string, Placeholder> } {
  const placeholders = new Map<string, Placeholder>();
  const p = new Proxy({} as Record<string, unknown>, {
    get(_target, name) {
      if (typeof name !== 'string') return undefined;
      let ph = placeholders.get(name);
      if (!ph) {
        ph = new Placeholder(name);
        placeholders.set(name, ph);
      }
      return ph;
    },
  }) as P;
  return { p, placeholders };
}

interface Compiled {
  query: CompiledQuery;
  /** Per parameter position: the name of the caller's value, or null to keep the compiled literal. */
  names: ReadonlyArray<string | null>;
}

export function prepareQuery<D, P extends Record<string, unknown>, O>(
  build: (db: Kysely<D>, p: P) => Compilable<O>,
): PreparedQuery<D, P, O> {
  const compiled = new WeakMap<object, Compiled>();

  const compiledFor = (db: Kysely<D>): Compiled => {
    const scope = compileScope(db);
    let c = compiled.get(scope);
    if (!c) {
      c = compile(db, build);
      compiled.set(scope, c);
    }
    return c;
  };

  const execute = async (db: Kysely<D>, values: P): Promise<O[]> => {
    const { query, names } = compiledFor(db);
    const parameters = names.map((name, i) => (name === null ? query.parameters[i] : values[name]));
    return runCompiled<D, O>(db, query, parameters);
  };

  return {
    execute,
    executeTakeFirst: async (db, values) => (await execute(db, values))[0],
  };
}

/** Runs a compiled text with these values: prepared.ts and prepared-rows.ts both end here. */
export async function runCompiled<D, O>(
  db: Kysely<D>,
  query: CompiledQuery,
  parameters: readonly unknown[],
): Promise<O[]> {
  // SQLite, outside a transaction, a read-only statement runs at once (direct-reads.ts). Only a
  // database's own instance has a direct reader, and it has no plugins: Kysely would hand back these
  // very rows.
  const direct = db instanceof Database ? db.directReads?.all(query.sql, parameters) : undefined;
  if (direct) return direct as O[];
  // A fresh query id per run, as Kysely's own execute gives, for plugins that key state on it.
  const result = await db.executeQuery<O>({ ...query, queryId: createQueryId(), parameters });
  return result.rows;
}

/**
 * What a compiled text can be shared across. A transaction or single connection of a database is a new
 * Kysely object each time, but it compiles exactly as the database does (the same compiler and adapter),
 * so its queries are compiled once per database, not once per transaction. An instance with plugins
 * (which rewrite queries as they compile) keeps texts of its own.
 */
export function compileScope(db: {
  getExecutor(): { readonly plugins: readonly unknown[]; readonly adapter: object };
}): object {
  const executor = db.getExecutor();
  return executor.plugins.length === 0 ? executor.adapter : db;
}

function compile<D, P>(db: Kysely<D>, build: (db: Kysely<D>, p: P) => Compilable<unknown>): Compiled {
  const { p, placeholders } = placeholderSource<P>();
  const query = build(db, p).compile();
  const names = query.parameters.map((value) => (value instanceof Placeholder ? value.name : null));
  for (const name of placeholders.keys()) {
    const count = names.filter((n) => n === name).length;
    if (count !== 1) {
      throw new Error(
        `prepared query: parameter ${name} compiled to ${count} positions (need exactly one): ${query.sql}`,
      );
    }
  }
  return { query, names };
}
