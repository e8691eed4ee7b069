import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import { prepareQuery } from '../../src/storage/engine/prepared.js';
import { openScratchDatabase, testDialects } from '../helpers/context.js';

interface ThingsTable {
  id: string;
  kind: string;
  n: number;
  note: string | null;
}
interface TestDB {
  things: ThingsTable;
}

// The parameters are read from p in another order than they compile in, with a literal between them.
let builds = 0;
const byKindAndRange = prepareQuery((db: Kysely<TestDB>, p: { max: number; kind: string; min: number }) => {
  builds++;
  return db
    .selectFrom('things')
    .select(['id', 'n', 'note'])
    .where('kind', '=', p.kind)
    .where('note', 'is not', null)
    .where('id', '!=', 'excluded')
    .where('n', '>=', p.min)
    .where('n', '<=', p.max)
    .orderBy('n');
});
const byId = prepareQuery((db: Kysely<TestDB>, p: { id: string }) =>
  db.selectFrom('things').selectAll().where('id', '=', p.id),
);

const ROWS: ThingsTable[] = [
  { id: 'a', kind: 'x', n: 1, note: 'one' },
  { id: 'b', kind: 'x', n: 2, note: 'two' },
  { id: 'c', kind: 'y', n: 3, note: 'three' },
  { id: 'd', kind: 'x', n: 4, note: null },
  { id: 'excluded', kind: 'x', n: 2, note: 'hidden' },
  { id: 'e', kind: 'x', n: 5, note: 'five' },
];

const open = (dialect: 'sqlite' | 'postgres') =>
  openScratchDatabase(dialect, async (database) => {
    const db = database as unknown as Kysely<TestDB>;
    await db.schema
      .createTable('things')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('n', 'integer', (c) => c.notNull())
      .addColumn('note', 'text')
      .execute();
    await db.insertInto('things').values(ROWS).execute();
  });

describe.each(testDialects)('prepareQuery on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof open>>;
  let db: Kysely<TestDB>;
  beforeAll(async () => {
    ctx = await open(dialect);
    db = ctx.database as unknown as Kysely<TestDB>;
  });
  afterAll(async () => ctx.close());

  it('answers exactly as the same query built by Kysely each time, whatever the values', async () => {
    for (const [kind, min, max] of [
      ['x', 1, 5],
      ['x', 2, 4],
      ['y', 0, 9],
      ['x', 9, 1],
      ['z', 0, 9],
    ] as const) {
      const direct = await db
        .selectFrom('things')
        .select(['id', 'n', 'note'])
        .where('kind', '=', kind)
        .where('note', 'is not', null)
        .where('id', '!=', 'excluded')
        .where('n', '>=', min)
        .where('n', '<=', max)
        .orderBy('n')
        .execute();
      expect(await byKindAndRange.execute(db, { kind, min, max }), `${kind} ${min} ${max}`).toEqual(direct);
    }
    expect((await byKindAndRange.execute(db, { kind: 'x', min: 2, max: 5 })).map((r) => r.id)).toEqual(['b', 'e']);
  });

  it('takes the first row or undefined, typed as the selection', async () => {
    const row = await byId.executeTakeFirst(db, { id: 'c' });
    expect(row).toEqual(ROWS[2]);
    expect(await byId.executeTakeFirst(db, { id: 'nope' })).toBeUndefined();
    expectTypeOf(row).toEqualTypeOf<{ id: string; kind: string; n: number; note: string | null } | undefined>();
    const rows = await byKindAndRange.execute(db, { kind: 'x', min: 0, max: 9 });
    expectTypeOf(rows).toEqualTypeOf<Array<{ id: string; n: number; note: string | null }>>();
  });

  it('keeps concurrent runs apart', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'nope', 'a', 'e'];
    const rows = await Promise.all(ids.map((id) => byId.executeTakeFirst(db, { id })));
    expect(rows.map((r) => r?.id ?? null)).toEqual(ids.map((id) => (id === 'nope' ? null : id)));
  });

  it('compiles once per Kysely instance', async () => {
    const before = builds;
    for (let i = 0; i < 5; i++) await byKindAndRange.execute(db, { kind: 'x', min: i, max: 9 });
    expect(builds - before).toBeLessThanOrEqual(1);
    const other = await open(dialect);
    try {
      const otherDb = other.database as unknown as Kysely<TestDB>;
      await otherDb.deleteFrom('things').where('id', '=', 'b').execute();
      const mark = builds;
      expect((await byKindAndRange.execute(otherDb, { kind: 'x', min: 2, max: 5 })).map((r) => r.id)).toEqual(['e']);
      expect(builds).toBe(mark + 1);
      // The first database still has its own compiled query and its own rows.
      expect((await byKindAndRange.execute(db, { kind: 'x', min: 2, max: 5 })).map((r) => r.id)).toEqual(['b', 'e']);
      expect(builds).toBe(mark + 1);
    } finally {
      await other.close();
    }
  });

  it('rejects a parameter that is unused, used twice, or inlined, before any query runs', async () => {
    const unused = prepareQuery((d: Kysely<TestDB>, p: { id: string; kind: string }) => {
      void p.kind;
      return d.selectFrom('things').selectAll().where('id', '=', p.id);
    });
    await expect(unused.execute(db, { id: 'a', kind: 'x' })).rejects.toThrow(/parameter kind compiled to 0 positions/);
    const twice = prepareQuery((d: Kysely<TestDB>, p: { id: string }) =>
      d.selectFrom('things').selectAll().where('id', '=', p.id).where('kind', '!=', p.id),
    );
    await expect(twice.execute(db, { id: 'a' })).rejects.toThrow(/parameter id compiled to 2 positions/);
    const inlined = prepareQuery((d: Kysely<TestDB>, p: { n: number }) =>
      d.selectFrom('things').selectAll().where('n', '=', sql.lit(p.n)),
    );
    await expect(inlined.execute(db, { n: 1 })).rejects.toThrow();
  });
});

describe('prepareQuery compiles for the dialect of the instance', () => {
  it('numbers PostgreSQL parameters and maps each value to its own position', async () => {
    const seen: Array<{ sql: string; parameters: readonly unknown[] }> = [];
    const db = new Kysely<TestDB>({
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (k) => new PostgresIntrospector(k),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
      log: (event) => {
        seen.push({ sql: event.query.sql, parameters: event.query.parameters });
      },
    });
    await byKindAndRange.execute(db, { kind: 'k', min: 10, max: 20 });
    expect(seen[0]!.sql).toBe(
      'select "id", "n", "note" from "things" where "kind" = $1 and "note" is not null and "id" != $2 and "n" >= $3 and "n" <= $4 order by "n"',
    );
    expect(seen[0]!.parameters).toEqual(['k', 'excluded', 10, 20]);
    await db.destroy();
  });
});
