import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CamelCasePlugin, sql, type Kysely } from 'kysely';
import { compileScope } from '../../src/storage/engine/prepared.js';
import { prepareRowsQuery } from '../../src/storage/engine/prepared-rows.js';
import { openScratchDatabase, testDialects } from '../helpers/context.js';

interface ItemsTable {
  id: string;
  owner: string;
  n: number;
  note: string | null;
}
interface TestDB {
  items: ItemsTable;
}

let builds = 0;
const insertItems = prepareRowsQuery((db: Kysely<TestDB>, rows: readonly ItemsTable[], _p: Record<string, never>) => {
  builds++;
  return db
    .insertInto('items')
    .values([...rows])
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id');
});
// Shared values on both sides of the IN-list, and a literal between them.
const itemsOf = prepareRowsQuery(
  (db: Kysely<TestDB>, ids: readonly { id: string }[], p: { owner: string; min: number }) =>
    db
      .selectFrom('items')
      .select(['id', 'n', 'note'])
      .where('owner', '=', p.owner)
      .where('note', 'is not', null)
      .where(
        'id',
        'in',
        ids.map((r) => r.id),
      )
      .where('id', '!=', 'never')
      .where('n', '>=', p.min)
      .orderBy('id'),
);

const open = (dialect: 'sqlite' | 'postgres') =>
  openScratchDatabase(dialect, async (database) => {
    const db = database as unknown as Kysely<TestDB>;
    await db.schema
      .createTable('items')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('n', 'integer', (c) => c.notNull())
      .addColumn('note', 'text')
      .execute();
  });

describe.each(testDialects)('prepareRowsQuery on %s', (dialect) => {
  let ctx: Awaited<ReturnType<typeof open>>;
  let db: Kysely<TestDB>;
  beforeAll(async () => {
    ctx = await open(dialect);
    db = ctx.database as unknown as Kysely<TestDB>;
  });
  afterAll(async () => ctx.close());
  beforeEach(async () => {
    await db.deleteFrom('items').execute();
  });

  const item = fc.record({
    id: fc.string({ minLength: 1, maxLength: 6 }),
    owner: fc.constantFrom('a', 'b'),
    n: fc.integer({ min: -5, max: 5 }),
    note: fc.option(fc.string({ maxLength: 4 }), { nil: null }),
  });

  it('writes and reads exactly what the same queries built by Kysely each time do, whatever the rows', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(item, { minLength: 1, maxLength: 12 }),
        fc.array(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 9 }),
        fc.integer({ min: -5, max: 5 }),
        async (rows, probe, min) => {
          await db.deleteFrom('items').execute();
          const won = await insertItems.execute(db, rows, {});
          const table = await db.selectFrom('items').selectAll().orderBy('id').execute();
          await db.deleteFrom('items').execute();
          const wonByKysely = await db
            .insertInto('items')
            .values(rows)
            .onConflict((oc) => oc.column('id').doNothing())
            .returning('id')
            .execute();
          expect(won).toEqual(wonByKysely);
          expect(table).toEqual(await db.selectFrom('items').selectAll().orderBy('id').execute());
          const read = await itemsOf.execute(
            db,
            probe.map((id) => ({ id })),
            { owner: 'a', min },
          );
          const readByKysely = await db
            .selectFrom('items')
            .select(['id', 'n', 'note'])
            .where('owner', '=', 'a')
            .where('note', 'is not', null)
            .where('id', 'in', probe)
            .where('id', '!=', 'never')
            .where('n', '>=', min)
            .orderBy('id')
            .execute();
          expect(read).toEqual(readByKysely);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('compiles once per row count and column set', async () => {
    const row = (i: number): ItemsTable => ({ id: `c${i}`, owner: 'a', n: i, note: null });
    // Row counts the property test above never uses (it inserts at most 12).
    const rows = (from: number, count: number) => Array.from({ length: count }, (_, i) => row(from + i));
    const before = builds;
    for (let i = 0; i < 4; i++) await insertItems.execute(db, rows(i * 20, 20), {});
    expect(builds - before).toBe(1);
    await insertItems.execute(db, rows(1000, 21), {});
    expect(builds - before).toBe(2);
    const stored = await db.selectFrom('items').select(['id', 'n']).execute();
    expect(stored).toHaveLength(101);
    // Every value landed in its own row, in every compiled shape.
    for (const r of stored) expect(r.id).toBe(`c${r.n}`);
  });

  it('compiles once for the database, not once per transaction; an instance with plugins keeps its own', async () => {
    const row = (i: number): ItemsTable => ({ id: `t${i}`, owner: 'b', n: i, note: 'x' });
    const before = builds;
    for (let t = 0; t < 3; t++) {
      await ctx.database.runInTransaction((trx) =>
        insertItems.execute(
          trx as unknown as Kysely<TestDB>,
          Array.from({ length: 22 }, (_, i) => row(t * 22 + i)),
          {},
        ),
      );
    }
    expect(builds - before).toBe(1);
    expect(compileScope(db.withPlugin(new CamelCasePlugin()))).not.toBe(compileScope(db));
    expect(
      await db
        .selectFrom('items')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow(),
    ).toEqual({ n: 66 });
  });

  it('refuses rows whose columns differ from the first row, or with an undefined value, before anything runs', async () => {
    const good: ItemsTable = { id: 'g', owner: 'a', n: 1, note: null };
    const missing = { id: 'm', owner: 'a', n: 1 } as unknown as ItemsTable;
    const extra = { ...good, id: 'x', more: 1 } as unknown as ItemsTable;
    const undef = { ...good, id: 'u', note: undefined } as unknown as ItemsTable;
    for (const bad of [missing, extra, undef]) {
      await expect(insertItems.execute(db, [good, bad], {})).rejects.toThrow(/row 1 does not have exactly the columns/);
    }
    await expect(insertItems.execute(db, [], {})).rejects.toThrow(/no rows/);
    expect(await db.selectFrom('items').selectAll().execute()).toEqual([]);
  });

  it('refuses a build where a value is not exactly one parameter', async () => {
    const dropsColumn = prepareRowsQuery((d: Kysely<TestDB>, rows: readonly ItemsTable[], _p: Record<string, never>) =>
      d.insertInto('items').values(rows.map((r) => ({ id: r.id, owner: r.owner, n: r.n, note: null }))),
    );
    await expect(dropsColumn.execute(db, [{ id: 'a', owner: 'a', n: 1, note: 'x' }], {})).rejects.toThrow(
      /did not become a parameter/,
    );
    const inlines = prepareRowsQuery((d: Kysely<TestDB>, rows: readonly { id: string }[], p: { owner: string }) =>
      d
        .selectFrom('items')
        .selectAll()
        .where('owner', '=', sql.lit(p.owner as unknown as string))
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        ),
    );
    await expect(inlines.execute(db, [{ id: 'a' }], { owner: 'a' })).rejects.toThrow();
    const twice = prepareRowsQuery((d: Kysely<TestDB>, rows: readonly { id: string }[], _p: Record<string, never>) =>
      d
        .selectFrom('items')
        .selectAll()
        .where(
          'id',
          'in',
          rows.map((r) => r.id),
        )
        .where(
          'owner',
          'in',
          rows.map((r) => r.id),
        ),
    );
    await expect(twice.execute(db, [{ id: 'a' }], {})).rejects.toThrow(/two positions/);
  });
});
