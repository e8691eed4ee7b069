import { describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { onPostgres, useSeededContext } from '../../helpers/context.js';

// Group commit is SQLite's; on PostgreSQL runInTransaction is a plain transaction per unit, which the
// rest of the suite covers.
describe.skipIf(onPostgres)('group commit on SQLite', () => {
  const h = useSeededContext();
  const { setup, input } = h;

  // A deferred foreign-key violation passes every statement and fails only at COMMIT.
  const poisonUnit = () =>
    h.ctx.deps.db.runInTransaction(async (trx) => {
      await sql`pragma defer_foreign_keys = on`.execute(trx);
      await trx
        .insertInto('api_keys')
        .values({
          id: 'key_orphan',
          merchant_id: 'mch_nobody',
          mode: 'test',
          key_hash: 'h',
          key_prefix: 'p',
          created_at: 0,
          revoked_at: null,
        })
        .execute();
    });

  const countRows = async () =>
    Number(
      (
        await h.ctx.deps.db
          .selectFrom('transactions')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("the database object refuses Kysely's own transactions: every write goes through runInTransaction", async () => {
    await setup();
    expect(() => h.ctx.deps.db.transaction()).toThrow(/runInTransaction/);
    expect(() => h.ctx.deps.db.startTransaction()).toThrow(/runInTransaction/);
  });

  it('many concurrent creates share a few commits, and one amount still gets distinct totals', async () => {
    await setup();
    const before = h.ctx.deps.db.commitStats;
    // Rp100.000: 999 codes (a smaller price gets fewer, max(99, 1% of it)), room for all 200.
    const results = await Promise.all(Array.from({ length: 200 }, () => createTransaction(h.ctx.deps, input(100_000))));
    const after = h.ctx.deps.db.commitStats;
    // Plain creates of one turn are one batched unit (create-batch.ts), so a few units and commits in all.
    expect(after.units - before.units).toBeLessThanOrEqual(3);
    expect(after.commits - before.commits).toBeLessThanOrEqual(3);
    expect(new Set(results.map((r) => r.transaction.total_amount)).size).toBe(200);
    expect(await countRows()).toBe(200);
  });

  it('an exhausted amount fails only its own requests, not its batch-mates', async () => {
    await setup({ UNIQUE_CODE_MIN: '1', UNIQUE_CODE_MAX: '3' });
    const before = h.ctx.deps.db.commitStats;
    const settled = await Promise.allSettled([
      ...Array.from({ length: 5 }, () => createTransaction(h.ctx.deps, input(20_000))),
      createTransaction(h.ctx.deps, input(30_000)),
    ]);
    expect(h.ctx.deps.db.commitStats.commits - before.commits).toBe(1);
    const ok = settled.filter((s) => s.status === 'fulfilled');
    const failed = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    expect(ok).toHaveLength(4);
    expect(failed.map((f) => f.reason.code)).toEqual(['unique_code_exhausted', 'unique_code_exhausted']);
    expect(settled[5]!.status).toBe('fulfilled');
    expect(await countRows()).toBe(4);
  });

  it('a unit that throws after writing leaves nothing behind; its batch-mates commit', async () => {
    await setup();
    const throwing = h.ctx.deps.db.runInTransaction(async (trx) => {
      await trx
        .insertInto('idempotency_keys')
        .values({
          merchant_id: h.seeded.merchant.id,
          idem_key: 'x',
          request_hash: 'h',
          transaction_id: 'trx_none',
          created_at: 0,
        })
        .execute();
      throw new Error('boom');
    });
    const [a, b, c] = await Promise.allSettled([
      createTransaction(h.ctx.deps, input(1000)),
      throwing,
      createTransaction(h.ctx.deps, input(1000)),
    ]);
    expect(a.status).toBe('fulfilled');
    expect(b).toMatchObject({ status: 'rejected', reason: { message: 'boom' } });
    expect(c.status).toBe('fulfilled');
    expect(await countRows()).toBe(2);
    expect(await h.ctx.deps.db.selectFrom('idempotency_keys').selectAll().execute()).toEqual([]);
  });

  it('a ref race inside one batch: the loser answers as a replay of the winner; another amount is a ref_conflict', async () => {
    await setup();
    const [a, b, c] = await Promise.allSettled([
      createTransaction(h.ctx.deps, input(5000, { ref: 'order-1' })),
      createTransaction(h.ctx.deps, input(5000, { ref: 'order-1' })),
      createTransaction(h.ctx.deps, input(7000, { ref: 'order-1' })),
    ]);
    expect(a.status === 'fulfilled' && b.status === 'fulfilled').toBe(true);
    if (a.status !== 'fulfilled' || b.status !== 'fulfilled') return;
    expect(b.value.transaction.id).toBe(a.value.transaction.id);
    expect([a.value.replayed, b.value.replayed].sort()).toEqual([false, true]);
    expect(c).toMatchObject({ status: 'rejected', reason: { code: 'ref_conflict' } });
    expect(await countRows()).toBe(1);
  });

  it('a failed commit fails every request of the batch, and the database keeps working', async () => {
    await setup();
    const poison = poisonUnit();
    // Creates with a ref go one by one, each a unit of its own in the failing commit.
    const settled = await Promise.allSettled([
      createTransaction(h.ctx.deps, input(1000, { ref: 'a' })),
      poison,
      createTransaction(h.ctx.deps, input(2000, { ref: 'b' })),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(await countRows()).toBe(0);
    await expect(createTransaction(h.ctx.deps, input(1000))).resolves.toMatchObject({ replayed: false });
    expect(await countRows()).toBe(1);
  });

  it('a batch of plain creates caught in a failed commit is made again one by one; only the bad unit fails', async () => {
    await setup();
    const poison = poisonUnit();
    const before = h.ctx.deps.db.commitStats;
    const settled = await Promise.allSettled([
      createTransaction(h.ctx.deps, input(1000)),
      poison,
      createTransaction(h.ctx.deps, input(2000)),
    ]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(h.ctx.deps.db.commitStats.commits - before.commits).toBeGreaterThanOrEqual(1);
    expect(await countRows()).toBe(2);
    expect(await h.ctx.deps.db.selectFrom('api_keys').select('id').where('id', '=', 'key_orphan').execute()).toEqual(
      [],
    );
  });

  it('each create and payment is answered only once its rows are readable from another connection', async () => {
    await setup();
    const reader = new BetterSqlite3(join(h.ctx.dir, 'gateway.db'), { readonly: true });
    try {
      const seen = (id: string) =>
        reader.prepare('select count(*) as n from transactions where id = ?').get(id) as { n: number };
      const checks = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          // The check runs synchronously in the continuation, before anything else can commit.
          createTransaction(h.ctx.deps, input(3000 + i)).then((r) => ({
            tx: r.transaction,
            n: seen(r.transaction.id).n,
          })),
        ),
      );
      expect(checks.every((c) => c.n === 1)).toBe(true);

      const paid = await Promise.all(
        checks.slice(0, 10).map((c, i) =>
          recordPayment(h.ctx.deps, {
            merchantId: h.seeded.merchant.id,
            mode: 'test',
            source: 'simulator',
            sourcePaymentId: `p${i}`,
            amount: c.tx.total_amount,
            paidAt: h.ctx.deps.now(),
            trxid: c.tx.id,
          }).then((r) => ({
            r,
            row: reader.prepare('select status from transactions where id = ?').get(c.tx.id) as { status: string },
          })),
        ),
      );
      expect(paid.every((p) => p.r.outcome === 'matched' && p.row.status === 'paid')).toBe(true);
    } finally {
      reader.close();
    }
  });

  it('the log is flushed off the event loop before callers hear back, and the connection is left at synchronous=FULL', async () => {
    await setup();
    const wal = h.ctx.deps.db.walSync!;
    expect(wal).toBeDefined();
    const before = wal.flushes;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createTransaction(h.ctx.deps, input(8000 + i))),
    );
    // Every caller was answered after at least one flush that started after its batch committed.
    expect(wal.flushes).toBeGreaterThan(before);
    expect(results).toHaveLength(20);
    // Writes outside group commits (autocommit statements) keep SQLite's own per-commit sync.
    const level = await sql<{ synchronous: number }>`pragma synchronous`.execute(h.ctx.deps.db);
    expect(level.rows[0]!.synchronous).toBe(2);
  });

  it('concurrent flush requests are coalesced, and each waits for a flush that started after it asked', async () => {
    await setup();
    const wal = h.ctx.deps.db.walSync!;
    await createTransaction(h.ctx.deps, input(1000));
    const before = wal.flushes;
    const first = wal.sync();
    // Asked while the first runs: they cannot be covered by it, so they share one more flush.
    const second = wal.sync();
    const third = wal.sync();
    expect(third).toBe(second);
    await first;
    const afterFirst = wal.flushes;
    await Promise.all([second, third]);
    expect(afterFirst - before).toBe(1);
    expect(wal.flushes - before).toBe(2);
  });

  it('units that arrive while a log flush runs wait for it and commit together', async () => {
    await setup();
    const wal = h.ctx.deps.db.walSync! as unknown as { flush: () => Promise<void> };
    const realFlush = wal.flush.bind(wal);
    // A slow disk: each flush takes a second, so the ten arrivals below (5 ms apart when the machine is idle)
    // all come during the first one even on a loaded CI host, whose timers run late.
    wal.flush = async () => {
      await new Promise((r) => setTimeout(r, 1_000));
      await realFlush();
    };
    const before = h.ctx.deps.db.commitStats;
    const first = createTransaction(h.ctx.deps, input(11_000, { ref: 'first' }));
    const later: Array<Promise<unknown>> = [];
    // Ten more, each in an event-loop turn of its own, all during the first flush.
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setTimeout(r, 5));
      later.push(createTransaction(h.ctx.deps, input(12_000 + i, { ref: `later-${i}` })));
    }
    await Promise.all([first, ...later]);
    const after = h.ctx.deps.db.commitStats;
    expect(after.units - before.units).toBe(11);
    expect(after.commits - before.commits).toBe(2);
  });

  it('closing the database first commits the units already queued', async () => {
    await setup();
    const units = Array.from({ length: 20 }, (_, i) =>
      h.ctx.deps.db.runInTransaction((trx) =>
        trx
          .insertInto('api_keys')
          .values({
            id: `key_queued_${i}`,
            merchant_id: h.seeded.merchant.id,
            mode: 'test',
            key_hash: `queued_${i}`,
            key_prefix: 'p',
            created_at: 0,
            revoked_at: null,
          })
          .execute(),
      ),
    );
    // Asked in the same turn, before their batch has even started.
    await h.ctx.database.close();
    await Promise.all(units);
    const reader = new BetterSqlite3(join(h.ctx.dir, 'gateway.db'), { readonly: true });
    try {
      const stored = reader.prepare("select count(*) as n from api_keys where id like 'key_queued_%'").get() as {
        n: number;
      };
      expect(stored.n).toBe(20);
    } finally {
      reader.close();
    }
  });
});
