import { describe, expect, it } from 'vitest';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { getTransaction } from '../../../src/services/transactions/get-transaction.js';
import { getTransactionById } from '../../../src/services/transactions/get-transaction-by-id.js';
import { onPostgres, useSeededContext } from '../../helpers/context.js';

describe('prepared reads', () => {
  const h = useSeededContext();

  it.skipIf(onPostgres)("on SQLite, run at once outside a transaction, without Kysely's connection queue", async () => {
    await h.setup();
    const { transaction } = await createTransaction(h.ctx.deps, h.input(10_000));
    const db = h.ctx.deps.db;
    expect(db.directReads).toBeDefined();
    const original = db.executeQuery.bind(db);
    let queued = 0;
    db.executeQuery = ((query: Parameters<typeof original>[0]) => {
      queued += 1;
      return original(query);
    }) as typeof db.executeQuery;
    try {
      const read = await getTransaction(h.ctx.deps, { merchantId: h.seeded.merchant.id, mode: 'test' }, transaction.id);
      expect(read.transaction).toEqual(transaction);
      expect(queued).toBe(0);
    } finally {
      db.executeQuery = original;
    }
  });

  it.skipIf(onPostgres)('on SQLite, leave every write to Kysely, an INSERT ... RETURNING too', async () => {
    await h.setup();
    const direct = h.ctx.deps.db.directReads!;
    const insert = `insert into "audit_log" ("id", "actor", "action", "subject_type", "subject_id", "details", "created_at")
      values (?, 'test', 'probe', 'none', 'none', null, 0) returning "id"`;
    // better-sqlite3 calls this statement a reader (it returns rows); it is still a write.
    expect(direct.all(insert, ['aud_direct'])).toBeNull();
    const found = await h.ctx.deps.db.selectFrom('audit_log').select('id').where('id', '=', 'aud_direct').execute();
    expect(found).toEqual([]);
  });

  it.skipIf(!onPostgres)('on PostgreSQL, always go through the pool', async () => {
    await h.setup();
    expect(h.ctx.deps.db.directReads).toBeNull();
  });

  it('never see what an open transaction has not committed, and wait for it instead', async () => {
    await h.setup();
    const { transaction } = await createTransaction(h.ctx.deps, h.input(10_000));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let updated!: () => void;
    const hasUpdated = new Promise<void>((resolve) => (updated = resolve));
    // A unit that marks the transaction paid, holds its transaction open, then fails: rolled back.
    const unit = h.ctx.deps.db.runInTransaction(async (trx) => {
      await trx.updateTable('transactions').set({ status: 'paid' }).where('id', '=', transaction.id).execute();
      updated();
      await gate;
      throw new Error('rolled back');
    });
    await hasUpdated;
    let seen: string | null = null;
    const read = getTransactionById(h.ctx.deps, transaction.id).then((row) => (seen = row.status));
    try {
      // SQLite: one connection, held by the open transaction, so the read waits. PostgreSQL: another
      // connection, which answers while the transaction is still open, with the committed row.
      // Neither sees the uncommitted 'paid'. No timing on PostgreSQL: the read must finish first.
      if (onPostgres) {
        await read;
        expect(seen).toBe('pending');
      } else {
        await new Promise((resolve) => setTimeout(resolve, 30));
        expect(seen).toBeNull();
      }
    } finally {
      release();
    }
    await expect(unit).rejects.toThrow('rolled back');
    await read;
    expect(seen).toBe('pending');
  });
});
