import { describe, expect, it } from 'vitest';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { getTransaction } from '../../../src/services/transactions/get-transaction.js';
import { getTransactionById } from '../../../src/services/transactions/get-transaction-by-id.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { loadTransactionById } from '../../../src/storage/queries/transactions.js';
import { seedMerchant, useSeededContext } from '../../helpers/context.js';
import { countStatements } from '../../helpers/count-statements.js';

describe('status reads that arrive together', () => {
  const h = useSeededContext();

  it('share one statement per 64 ids, and each gets its own transaction', async () => {
    await h.setup();
    const created = [];
    for (let i = 0; i < 150; i++) created.push((await createTransaction(h.ctx.deps, h.input(10_000 + i))).transaction);
    const owner = { merchantId: h.seeded.merchant.id, mode: 'test' as const };
    const statements = countStatements(h.ctx.deps.db);
    const reads = await Promise.all(created.map((tx) => getTransaction(h.ctx.deps, owner, tx.id)));
    expect(reads.map((r) => r.transaction)).toEqual(created);
    expect(reads.every((r) => r.payment === null)).toBe(true);
    // 150 ids in one turn: 64 + 64 + 22.
    expect(statements.count).toBe(3);
  });

  it('use one statement text per power of two, whatever the number of ids', async () => {
    await h.setup();
    const ids = [];
    for (let i = 0; i < 40; i++) ids.push((await createTransaction(h.ctx.deps, h.input(60_000 + i))).transaction.id);
    const statements = countStatements(h.ctx.deps.db);
    for (let n = 1; n <= ids.length; n++) {
      const rows = await Promise.all(ids.slice(0, n).map((id) => getTransactionById(h.ctx.deps, id)));
      expect(rows.map((r) => r.id)).toEqual(ids.slice(0, n));
    }
    expect(statements.count).toBe(ids.length);
    // 1, 2, 4, 8, 16, 32 and 64 ids.
    expect(statements.texts.size).toBe(7);
  });

  it("never hand one merchant (or mode) another's transaction, even in the same statement", async () => {
    await h.setup();
    const other = await seedMerchant(h.ctx.deps, 1, 'Other Merchant');
    const mine = (await createTransaction(h.ctx.deps, h.input(20_000))).transaction;
    const theirs = (await createTransaction(h.ctx.deps, { ...h.input(20_000), merchantId: other.merchant.id }))
      .transaction;
    const live = (await createTransaction(h.ctx.deps, h.input(20_000, { mode: 'live' }))).transaction;
    const owner = { merchantId: h.seeded.merchant.id, mode: 'test' as const };
    const statements = countStatements(h.ctx.deps.db);
    const [a, b, c, d] = await Promise.allSettled([
      getTransaction(h.ctx.deps, owner, mine.id),
      getTransaction(h.ctx.deps, owner, theirs.id),
      getTransaction(h.ctx.deps, owner, live.id),
      getTransaction(h.ctx.deps, owner, 'trx_doesnotexist0000000000000000'),
    ]);
    expect(a.status === 'fulfilled' && a.value.transaction.id).toBe(mine.id);
    for (const r of [b, c, d]) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'transaction_not_found' });
    }
    expect(statements.count).toBe(1);
    // The id alone (QR image, checkout page) is the capability: any merchant's transaction is found.
    expect((await getTransactionById(h.ctx.deps, theirs.id)).merchant_id).toBe(other.merchant.id);
  });

  it('read an id asked for twice once, and give each asker a copy of its own', async () => {
    await h.setup();
    const tx = (await createTransaction(h.ctx.deps, h.input(30_000))).transaction;
    const statements = countStatements(h.ctx.deps.db);
    const [a, b] = await Promise.all([getTransactionById(h.ctx.deps, tx.id), getTransactionById(h.ctx.deps, tx.id)]);
    expect(a).toEqual(tx);
    expect(b).toEqual(tx);
    expect(a).not.toBe(b);
    a.status = 'paid';
    expect(b.status).toBe('pending');
    expect(statements.count).toBe(1);
  });

  it('bring the payment of a paid transaction, read in a batch of their own', async () => {
    await h.setup();
    const txs = [];
    for (let i = 0; i < 3; i++) txs.push((await createTransaction(h.ctx.deps, h.input(40_000 + i))).transaction);
    for (const [i, tx] of txs.entries()) {
      await recordPayment(h.ctx.deps, {
        merchantId: h.seeded.merchant.id,
        mode: 'test',
        source: 'simulator',
        sourcePaymentId: `batched-${i}`,
        amount: tx.total_amount,
        paidAt: h.ctx.deps.now(),
        trxid: tx.id,
      });
    }
    const owner = { merchantId: h.seeded.merchant.id, mode: 'test' as const };
    const statements = countStatements(h.ctx.deps.db);
    const reads = await Promise.all(txs.map((tx) => getTransaction(h.ctx.deps, owner, tx.id)));
    for (const [i, r] of reads.entries()) {
      expect(r.transaction.status).toBe('paid');
      expect(r.payment).toMatchObject({
        id: r.transaction.payment_id,
        source_payment_id: `batched-${i}`,
        amount: txs[i]!.total_amount,
      });
    }
    // One statement for the three transactions, one for their three payments.
    expect(statements.count).toBe(2);
  });

  it('inside a transaction, run at once in it and see its own uncommitted writes', async () => {
    await h.setup();
    const tx = (await createTransaction(h.ctx.deps, h.input(50_000))).transaction;
    // The database's own instance would not see the uncommitted 'expired' (on SQLite it would wait for
    // this very transaction); the transaction's reads go through its own connection.
    const seen = await h.ctx.deps.db.runInTransaction(async (trx) => {
      await trx.updateTable('transactions').set({ status: 'expired' }).where('id', '=', tx.id).execute();
      return (await loadTransactionById(trx, tx.id))?.status;
    });
    expect(seen).toBe('expired');
    expect((await getTransactionById(h.ctx.deps, tx.id)).status).toBe('expired');
  });
});
