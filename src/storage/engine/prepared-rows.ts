import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { compileScope, Placeholder, placeholderSource, runCompiled } from './prepared.js';

/**
 * prepared.ts for queries over a list of rows: a multi-row insert, or a read of an IN-list. Kysely
 * builds and compiles such a query per call, walking every value of every row (for a batch of 16
 * transaction rows, 19 columns each, about 65 µs here, as much as SQLite's own work on the insert). The
 * text depends only on how many rows there are and which columns they have, so it is compiled once per
 * database, row count and column set, and later calls only lay the values out.
 *
 * Each row must have the columns of the first row, every one defined (Kysely would write DEFAULT for a
 * missing one; here that is an error, not a silent difference). Values shared by the whole query (say,
 * the merchant an IN-list is read for) are read from `p`, as in prepared.ts. Compilation checks that
 * every row value and every shared value lands in exactly one parameter.
 */
export interface PreparedRowsQuery<D, R, P, O> {
  execute(db: Kysely<D>, rows: readonly R[], shared: P): Promise<O[]>;
}

class RowValue {
  constructor(
    readonly row: number,
    readonly column: string,
  ) {
    Object.freeze(this);
  }
}

interface Compiled {
  query: CompiledQuery;
  /** Per parameter position: where its value comes from, or null to keep the compiled literal. */
  slots: ReadonlyArray<RowValue | Placeholder | null>;
}

/**
 * The list padded to a power of two by repeating its last item, for an IN-list (which reads a row once
 * however often it is named): 7 statement texts per query instead of one per length up to 64, so they
 * stay few among SQLite's cached statements and PostgreSQL's named ones.
 */
export function padToPowerOfTwo<T>(items: readonly T[]): T[] {
  const length = 2 ** Math.ceil(Math.log2(items.length));
  return Array.from({ length }, (_, i) => items[Math.min(i, items.length - 1)]!);
}

/** Compiled texts kept per query and database; row counts beyond this many are compiled again. */
const SHAPES_PER_DATABASE = 64;

export function prepareRowsQuery<D, R extends object, P extends object, O>(
  build: (db: Kysely<D>, rows: readonly R[], p: P) => Compilable<O>,
): PreparedRowsQuery<D, R, P, O> {
  const compiled = new WeakMap<object, Map<string, Compiled>>();

  return {
    async execute(db, rows, shared) {
      if (rows.length === 0) throw new Error('prepared rows query: no rows');
      const values = rows as readonly Record<string, unknown>[];
      const columns = Object.keys(values[0]!);
      for (let i = 0; i < values.length; i++) {
        const row = values[i]!;
        let count = 0;
        for (const key in row) if (Object.hasOwn(row, key)) count++;
        if (count !== columns.length || columns.some((c) => row[c] === undefined)) {
          throw new Error(
            `prepared rows query: row ${i} does not have exactly the columns ${columns.join(', ')}, all defined`,
          );
        }
      }
      // Batches run in transactions, a new Kysely object each time: texts are kept per database.
      const scope = compileScope(db);
      let shapes = compiled.get(scope);
      if (!shapes) {
        shapes = new Map();
        compiled.set(scope, shapes);
      }
      const shape = `${rows.length}\u0000${columns.join('\u0000')}`;
      let c = shapes.get(shape);
      if (!c) {
        c = compile(db, build, rows.length, columns);
        if (shapes.size >= SHAPES_PER_DATABASE) shapes.delete(shapes.keys().next().value!);
        shapes.set(shape, c);
      }
      const { query, slots } = c;
      const parameters = slots.map((s, i) =>
        s === null
          ? query.parameters[i]
          : s instanceof RowValue
            ? values[s.row]![s.column]
            : (shared as Record<string, unknown>)[s.name],
      );
      return runCompiled<D, O>(db, query, parameters);
    },
  };
}

function compile<D, R, P>(
  db: Kysely<D>,
  build: (db: Kysely<D>, rows: readonly R[], p: P) => Compilable<unknown>,
  count: number,
  columns: readonly string[],
): Compiled {
  const rows = Array.from(
    { length: count },
    (_, i) => Object.fromEntries(columns.map((c) => [c, new RowValue(i, c)])) as R,
  );
  const { p, placeholders: shared } = placeholderSource<P>();
  const query = build(db, rows, p).compile();
  const slots = query.parameters.map((value) =>
    value instanceof RowValue || value instanceof Placeholder ? value : null,
  );
  const seen = new Set<RowValue | Placeholder>();
  for (const s of slots) {
    if (s === null) continue;
    if (seen.has(s)) throw new Error(`prepared rows query: a value compiled to two positions: ${query.sql}`);
    seen.add(s);
  }
  const expected = count * columns.length + shared.size;
  if (seen.size !== expected) {
    throw new Error(`prepared rows query: ${expected - seen.size} value(s) did not become a parameter: ${query.sql}`);
  }
  return { query, slots };
}
