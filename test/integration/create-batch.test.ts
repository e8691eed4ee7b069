import { afterEach, describe, expect, it } from 'vitest';
import { createTransaction, type CreateTransactionInput } from '../../src/services/create-transaction.js';
import { parseQris } from '../../src/domain/qris/index.js';
import { openDatabase } from '../../src/storage/database.js';
import { createInput, createTestContext, seedMerchant, type Seeded, type TestContext } from '../helpers/context.js';

// Plain creates that arrive together are made in one database transaction (src/services/create-batch.ts).
// These run on SQLite and on PostgreSQL alike.
describe('batched creates', () => {
  let ctx: TestContext;
  let seeded: Seeded;

  async function setup(env: Record<string, string> = {}) {
    ctx = await createTestContext(env);
    seeded = await seedMerchant(ctx.deps);
  }
  afterEach(async () => ctx?.close());

  const input = (amount: number, extra: Partial<CreateTransactionInput> = {}) => createInput(seeded.merchant.id, amount, extra);

  const hold = async (amount: number, codes: number[], reservedUntil: number) =>
    ctx.deps.db
      .insertInto('reserved_totals')
      .values(codes.map((c) => ({ merchant_id: seeded.merchant.id, mode: 'test' as const, total_amount: amount + c, transaction_id: `trx_held${c}`, reserved_until: reservedUntil })))
      .execute();

  it('a crowded range: batch-mates whose samples are all held still get the remaining codes, distinct, and the rest fail alone', async () => {
    await setup({ UNIQUE_CODE_MIN: '1', UNIQUE_CODE_MAX: '100' });
    const amount = 40_000;
    // 92 of 100 codes held by open transactions: random samples mostly miss, so most creates fall back.
    await hold(amount, Array.from({ length: 92 }, (_, i) => i + 1), ctx.deps.now() + 3_600_000);
    const settled = await Promise.allSettled(Array.from({ length: 10 }, () => createTransaction(ctx.deps, input(amount))));
    const ok = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.transaction] : []));
    const failed = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as { code: string }] : []));
    expect(ok).toHaveLength(8);
    expect(new Set(ok.map((t) => t.unique_code))).toEqual(new Set([93, 94, 95, 96, 97, 98, 99, 100]));
    expect(failed.map((f) => f.code)).toEqual(['unique_code_exhausted', 'unique_code_exhausted']);
    const rows = await ctx.deps.db.selectFrom('reserved_totals').select(['total_amount', 'transaction_id']).where('transaction_id', 'in', ok.map((t) => t.id)).execute();
    expect(rows.map((r) => r.total_amount).sort()).toEqual(ok.map((t) => t.total_amount).sort());
  });

  it('lapsed reservations are reclaimed by batch-mates', async () => {
    await setup({ UNIQUE_CODE_MIN: '1', UNIQUE_CODE_MAX: '70' });
    const amount = 41_000;
    // Every code is reserved, but all of them lapsed a second ago.
    await hold(amount, Array.from({ length: 70 }, (_, i) => i + 1), ctx.deps.now() - 1000);
    const results = await Promise.all(Array.from({ length: 5 }, () => createTransaction(ctx.deps, input(amount))));
    expect(new Set(results.map((r) => r.transaction.total_amount)).size).toBe(5);
    const owners = await ctx.deps.db.selectFrom('reserved_totals').select('transaction_id').where('transaction_id', 'in', results.map((r) => r.transaction.id)).execute();
    expect(owners).toHaveLength(5);
  });

  it('each batched row carries its own dynamic QRIS of its total, and e-mails get their invoice', async () => {
    await setup();
    const amounts = [10_000, 10_000, 25_500, 99_000];
    const results = await Promise.all(amounts.map((a, i) => createTransaction(ctx.deps, input(a, { email: i % 2 === 0 ? `buyer${i}@example.com` : null }))));
    for (const [i, r] of results.entries()) {
      const t = r.transaction;
      expect(t.amount).toBe(amounts[i]);
      expect(t.total_amount).toBe(amounts[i]! + t.unique_code);
      expect(parseQris(t.qris).amount).toBe(t.total_amount);
      const stored = await ctx.deps.db.selectFrom('transactions').selectAll().where('id', '=', t.id).executeTakeFirstOrThrow();
      expect(stored).toEqual(t);
    }
    const emails = await ctx.deps.db.selectFrom('emails').select(['transaction_id', 'kind', 'recipient']).orderBy('recipient').execute();
    expect(emails).toEqual([
      { transaction_id: results[0]!.transaction.id, kind: 'invoice', recipient: 'buyer0@example.com' },
      { transaction_id: results[2]!.transaction.id, kind: 'invoice', recipient: 'buyer2@example.com' },
    ]);
  });

  it('two gateways on one database creating the same amount at once never share a total', async () => {
    await setup({ UNIQUE_CODE_MIN: '1', UNIQUE_CODE_MAX: '120' });
    // A second connection (pool) of its own, as another process would have; SQLite serialises the two
    // writers with its file lock, PostgreSQL with the primary key.
    const second = openDatabase(ctx.databaseUrl);
    try {
      const otherDeps = { ...ctx.deps, db: second.db };
      const settled = await Promise.allSettled(
        Array.from({ length: 140 }, (_, i) => createTransaction(i % 2 === 0 ? ctx.deps : otherDeps, input(60_000))),
      );
      const ok = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.transaction] : []));
      const failed = settled.flatMap((s) => (s.status === 'rejected' ? [(s.reason as { code: string }).code] : []));
      expect(new Set(ok.map((t) => t.total_amount)).size).toBe(ok.length);
      expect(ok.length).toBe(120);
      expect(new Set(failed)).toEqual(new Set(['unique_code_exhausted']));
    } finally {
      await second.close();
    }
  });
});
