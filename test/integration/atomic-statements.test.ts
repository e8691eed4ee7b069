import { afterEach, describe, expect, it } from 'vitest';
import { runAtomically, inlineParameters } from '../../src/storage/atomic-statements.js';
import { createTestContext, type TestContext } from '../helpers/context.js';

// One list of statements, all or nothing: a unit of work on SQLite, one simple-protocol message with the
// values written in as literals on PostgreSQL. Runs on both.
describe('runAtomically', () => {
  let ctx: TestContext;
  afterEach(async () => ctx?.close());

  const merchant = (id: string, name: string, createdAt: number) =>
    ctx.deps.db
      .insertInto('merchants')
      .values({ id, name, qris_static: 'static', merchant_name: name.slice(0, 25), merchant_city: 'Jakarta', nmid: null, acquirer: null, created_at: createdAt })
      .compile();

  it('runs every statement in order and returns each one its rows; values of any text survive the trip', async () => {
    ctx = await createTestContext();
    const names = ["O'Brien's \\ shop", 'back\\slash\\\\ and \'\'quotes', 'Toko Ümit — 东方 🛒', "'; drop table merchants; --", '$1 $$ /* not a comment */'];
    const statements = names.map((name, i) => merchant(`mch_atomic${i}`, name, -5 - i));
    statements.push(ctx.deps.db.selectFrom('merchants').select(['id', 'name', 'created_at']).where('id', 'like', 'mch_atomic%').orderBy('id').compile());
    const results = await runAtomically(ctx.deps, statements);
    expect(results).toHaveLength(names.length + 1);
    expect(results.at(-1)).toEqual(names.map((name, i) => ({ id: `mch_atomic${i}`, name, created_at: -5 - i })));
  });

  it('a failing statement undoes the ones before it and the error reaches the caller', async () => {
    ctx = await createTestContext();
    await expect(runAtomically(ctx.deps, [merchant('mch_first', 'first', 1), merchant('mch_twice', 'a', 1), merchant('mch_twice', 'b', 1)])).rejects.toThrow();
    expect(await ctx.deps.db.selectFrom('merchants').select('id').where('id', 'in', ['mch_first', 'mch_twice']).execute()).toEqual([]);
    // The connection is usable afterwards (on PostgreSQL it went back to the pool).
    await runAtomically(ctx.deps, [merchant('mch_after', 'after', 1)]);
    expect(await ctx.deps.db.selectFrom('merchants').select('id').where('id', '=', 'mch_after').execute()).toHaveLength(1);
  });
});

describe('inlineParameters', () => {
  it('writes each value as a literal, negatives in parentheses', () => {
    expect(inlineParameters({ sql: 'select $1, $2, $3 - $4, $10', parameters: ["it's", null, 5, -3, 0, 0, 0, 0, 0, 7n] })).toBe("select 'it''s', NULL, 5 - (-3), 7");
  });

  it('refuses what it cannot write safely', () => {
    expect(() => inlineParameters({ sql: "select 'x', $1", parameters: [1] })).toThrow(/refusing/);
    expect(() => inlineParameters({ sql: 'select $1; select 2', parameters: [1] })).toThrow(/refusing/);
    expect(() => inlineParameters({ sql: 'select $2', parameters: [1] })).toThrow(/no value/);
    expect(() => inlineParameters({ sql: 'select $1', parameters: [1.5] })).toThrow(/number/);
    expect(() => inlineParameters({ sql: 'select $1', parameters: ['a\u0000b'] })).toThrow(/NUL/);
    expect(() => inlineParameters({ sql: 'select $1', parameters: [{}] })).toThrow(/cannot inline/);
  });
});
