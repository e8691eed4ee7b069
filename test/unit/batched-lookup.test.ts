import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { batchedLookup } from '../../src/storage/engine/batched-lookup.js';

// The scheduling alone, with loaders that record what they were asked (the SQL side is covered by
// test/integration/transactions/batched-reads.test.ts on both databases).
const database = (isTransaction = false) => ({ isTransaction }) as unknown as Kysely<unknown>;
const rowsOf = (keys: string[]) => new Map(keys.filter((k) => !k.startsWith('missing')).map((k) => [k, { key: k }]));

describe('batchedLookup', () => {
  it('reads the keys of one turn together, in chunks of at most maxBatch, and the next turn apart', async () => {
    const calls: string[][] = [];
    const lookup = batchedLookup(async (_db, keys: string[]) => {
      calls.push(keys);
      return rowsOf(keys);
    }, 2);
    const db = database();
    const first = await Promise.all(['a', 'b', 'c', 'missing', 'a'].map((k) => lookup.load(db, k)));
    expect(first).toEqual([{ key: 'a' }, { key: 'b' }, { key: 'c' }, undefined, { key: 'a' }]);
    expect(calls).toEqual([
      ['a', 'b'],
      ['c', 'missing'],
    ]);
    expect(await lookup.load(db, 'd')).toEqual({ key: 'd' });
    expect(calls).toHaveLength(3);
  });

  it("keeps each database's keys to itself", async () => {
    const calls: [Kysely<unknown>, string[]][] = [];
    const lookup = batchedLookup(async (db, keys: string[]) => {
      calls.push([db, keys]);
      return rowsOf(keys);
    });
    const one = database();
    const two = database();
    await Promise.all([lookup.load(one, 'a'), lookup.load(two, 'b'), lookup.load(one, 'c')]);
    expect(calls).toEqual([
      [one, ['a', 'c']],
      [two, ['b']],
    ]);
  });

  it('fails only the reads of a chunk whose load fails, whether it rejects or throws at once', async () => {
    for (const fail of [
      (): Promise<never> => Promise.reject(new Error('boom')),
      (): never => {
        throw new Error('boom');
      },
    ]) {
      const lookup = batchedLookup(
        (_db, keys: string[]) => (keys.includes('bad') ? fail() : Promise.resolve(rowsOf(keys))),
        2,
      );
      const db = database();
      // Chunks [a, b], [bad, c], [d]: only the second fails.
      const results = await Promise.allSettled(['a', 'b', 'bad', 'c', 'd'].map((k) => lookup.load(db, k)));
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled']);
      expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ message: 'boom' });
    }
  });

  it("does not hold a transaction's reads: they run at once, one key each", async () => {
    const calls: string[][] = [];
    const lookup = batchedLookup(async (_db, keys: string[]) => {
      calls.push(keys);
      return rowsOf(keys);
    });
    const trx = database(true);
    const read = lookup.load(trx, 'a');
    // Already asked before this turn ends (a batched read would wait for setImmediate).
    expect(calls).toEqual([['a']]);
    expect(await read).toEqual({ key: 'a' });
  });
});
