import { newServiceState } from '../../../src/services/state.js';
import { describe, expect, it } from 'vitest';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { CREATE_BATCHES_AT_ONCE, createInBatch } from '../../../src/services/transactions/create-batch.js';
import type { CreateBatchStats } from '../../../src/services/transactions/create-queue.js';
import { parseQris } from '../../../src/domain/qris/index.js';
import { openDatabase } from '../../../src/storage/database.js';
import pg from 'pg';
import { sql } from 'kysely';
import { onPostgres, useSeededContext } from '../../helpers/context.js';

// Plain creates that arrive together are made in one database transaction (src/services/transactions/create-batch.ts).
// These run on SQLite and on PostgreSQL alike.
describe('batched creates', () => {
  const h = useSeededContext();
  const { setup, input } = h;

  const hold = async (amount: number, codes: number[], reservedUntil: number) =>
    h.ctx.deps.db
      .insertInto('reserved_totals')
      .values(
        codes.map((c) => ({
          merchant_id: h.seeded.merchant.id,
          mode: 'test' as const,
          total_amount: amount + c,
          transaction_id: `trx_held${c}`,
          reserved_until: reservedUntil,
        })),
      )
      .execute();

  it('a crowded range: batch-mates whose samples are all held still get the remaining codes, distinct, and the rest fail alone', async () => {
    await setup({ UNIQUE_CODE_MIN: '1', UNIQUE_CODE_MAX: '100' });
    const amount = 40_000;
    // 92 of 100 codes held by open transactions: random samples mostly miss, so most creates fall back.
    await hold(
      amount,
      Array.from({ length: 92 }, (_, i) => i + 1),
      h.ctx.deps.now() + 3_600_000,
    );
    const settled = await Promise.allSettled(
      Array.from({ length: 10 }, () => createTransaction(h.ctx.deps, input(amount))),
    );
    expect({ ...h.ctx.deps.state.creates.stats }.failed).toBe(0);
    const ok = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.transaction] : []));
    const failed = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as { code: string }] : []));
    expect(ok).toHaveLength(8);
    expect(new Set(ok.map((t) => t.unique_code))).toEqual(new Set([93, 94, 95, 96, 97, 98, 99, 100]));
    expect(failed.map((f) => f.code)).toEqual(['unique_code_exhausted', 'unique_code_exhausted']);
    const rows = await h.ctx.deps.db
      .selectFrom('reserved_totals')
      .select(['total_amount', 'transaction_id'])
      .where(
        'transaction_id',
        'in',
        ok.map((t) => t.id),
      )
      .execute();
    expect(rows.map((r) => r.total_amount).sort()).toEqual(ok.map((t) => t.total_amount).sort());
  });

  it('creates with an Idempotency-Key join the batch, each key naming its own transaction', async () => {
    await setup();
    const code = parseQris(h.seeded.merchant.qris_static);
    const keyed = (amount: number, key: string) =>
      input(amount, { idempotency: { key, requestHash: `hash-${amount}` } });
    // Queued in one turn: one batch makes them all, its key claims included.
    const rows = await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        createInBatch(h.ctx.deps, { input: keyed(50_000 + i, `key-${i}`), code, low: 1, high: 999 }, async () => {
          throw new Error('not expected: every key is free');
        }),
      ),
    );
    const keys = await h.ctx.deps.db
      .selectFrom('idempotency_keys')
      .select(['idem_key', 'transaction_id'])
      .where('merchant_id', '=', h.seeded.merchant.id)
      .execute();
    expect(Object.fromEntries(keys.map((k) => [k.idem_key, k.transaction_id]))).toEqual(
      Object.fromEntries(rows.map((r, i) => [`test:key-${i + 1}`, r.id])),
    );
    // Each key replays its own transaction.
    const again = await Promise.all(
      [1, 2, 3, 4, 5].map((i) => createTransaction(h.ctx.deps, keyed(50_000 + i, `key-${i}`))),
    );
    expect(again.map((r) => [r.replayed, r.transaction.id])).toEqual(rows.map((r) => [true, r.id]));
  });

  it('a batch-mate whose key is already taken is left out of the batch and made on its own', async () => {
    await setup();
    const code = parseQris(h.seeded.merchant.qris_static);
    const keyed = (amount: number, key: string) =>
      input(amount, { idempotency: { key, requestHash: `hash-${amount}` } });
    const first = await createTransaction(h.ctx.deps, keyed(54_000, 'taken'));
    const aloneFor: string[] = [];
    const rows = await Promise.all(
      [keyed(54_000, 'taken'), keyed(55_000, 'fresh-1'), keyed(56_000, 'fresh-2')].map((i) =>
        createInBatch(h.ctx.deps, { input: i, code, low: 1, high: 999 }, async (c) => {
          aloneFor.push(c.input.idempotency!.key);
          return first.transaction;
        }),
      ),
    );
    expect(aloneFor).toEqual(['taken']);
    expect(rows[0]!.id).toBe(first.transaction.id);
    // Nothing of the lost one was written: no second transaction of that amount, no second reservation.
    expect(
      await h.ctx.deps.db.selectFrom('transactions').select('id').where('amount', '=', 54_000).execute(),
    ).toHaveLength(1);
    expect(
      await h.ctx.deps.db
        .selectFrom('reserved_totals')
        .select('transaction_id')
        .where('total_amount', '>', 54_000)
        .where('total_amount', '<', 55_000)
        .execute(),
    ).toHaveLength(1);
  });

  it('one key sent ten times at once (a client retrying): one transaction, nine replays of it', async () => {
    await setup();
    const request = () =>
      createTransaction(h.ctx.deps, input(52_000, { idempotency: { key: 'same-key', requestHash: 'hash-52000' } }));
    const results = await Promise.all(Array.from({ length: 10 }, request));
    expect(new Set(results.map((r) => r.transaction.id)).size).toBe(1);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    const rows = await h.ctx.deps.db.selectFrom('transactions').select('id').where('amount', '=', 52_000).execute();
    expect(rows).toHaveLength(1);
    // The same key with another request is refused, never made.
    const other = await createTransaction(
      h.ctx.deps,
      input(53_000, { idempotency: { key: 'same-key', requestHash: 'hash-53000' } }),
    ).catch((e: { code: string }) => e);
    expect((other as { code: string }).code).toBe('idempotency_key_reused');
  });

  it('lapsed reservations are reclaimed by batch-mates', async () => {
    await setup({ UNIQUE_CODE_MIN: '1', UNIQUE_CODE_MAX: '70' });
    const amount = 41_000;
    // Every code is reserved, but all of them lapsed a second ago.
    await hold(
      amount,
      Array.from({ length: 70 }, (_, i) => i + 1),
      h.ctx.deps.now() - 1000,
    );
    const results = await Promise.all(Array.from({ length: 5 }, () => createTransaction(h.ctx.deps, input(amount))));
    expect(new Set(results.map((r) => r.transaction.total_amount)).size).toBe(5);
    const owners = await h.ctx.deps.db
      .selectFrom('reserved_totals')
      .select('transaction_id')
      .where(
        'transaction_id',
        'in',
        results.map((r) => r.transaction.id),
      )
      .execute();
    expect(owners).toHaveLength(5);
  });

  it('creates queued in one turn are made by one batch, never by the one-by-one path', async () => {
    await setup();
    const code = parseQris(h.seeded.merchant.qris_static);
    const before = { ...h.ctx.deps.state.creates.stats };
    const aloneCalls: number[] = [];
    const rows = await Promise.all(
      [15_000, 15_000, 16_000, 17_000, 18_000].map((amount) =>
        createInBatch(h.ctx.deps, { input: input(amount), code, low: 1, high: 999 }, async (c) => {
          aloneCalls.push(c.input.amount);
          throw new Error('not expected');
        }),
      ),
    );
    expect(aloneCalls).toEqual([]);
    expect(delta(before, { ...h.ctx.deps.state.creates.stats })).toEqual({
      batches: 1,
      made: 5,
      handedOn: 0,
      refused: 0,
      failed: 0,
    });
    expect(new Set(rows.map((r) => r.total_amount)).size).toBe(5);
    const stored = await h.ctx.deps.db
      .selectFrom('transactions')
      .selectAll()
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .execute();
    expect(stored).toHaveLength(5);
  });

  it('creates arriving while batches are made wait and form the next batches: never more at once than the bound', async () => {
    await setup();
    const code = parseQris(h.seeded.merchant.qris_static);
    const queue = h.ctx.deps.state.creates;
    const bound = CREATE_BATCHES_AT_ONCE[h.ctx.deps.db.dialect];
    const before = { ...queue.stats };
    // The most batches seen running at once, read on every turn of the event loop while the creates run.
    let most = 0;
    let watching = true;
    const watch = () => {
      most = Math.max(most, queue.running);
      if (watching) setImmediate(watch);
    };
    watch();
    const creates: Promise<{ total_amount: number }>[] = [];
    // Ten turns of twenty creates, each amount 1,000 from the next, so no two can share a total.
    for (let turn = 0; turn < 10; turn++) {
      for (let i = 0; i < 20; i++) {
        const amount = 30_000 + (turn * 20 + i) * 1000;
        creates.push(
          createInBatch(h.ctx.deps, { input: input(amount), code, low: 1, high: 999 }, (c) =>
            createTransaction(h.ctx.deps, c.input).then((r) => r.transaction),
          ),
        );
      }
      await new Promise((r) => setImmediate(r));
    }
    const rows = await Promise.all(creates);
    watching = false;
    expect(new Set(rows.map((r) => r.total_amount)).size).toBe(200);
    const made = delta(before, { ...queue.stats });
    expect(made.made + made.handedOn).toBe(200);
    expect(queue.running).toBe(0);
    expect(most).toBeGreaterThanOrEqual(1);
    expect(most).toBeLessThanOrEqual(bound);
    // On PostgreSQL the turns that found every slot taken waited and were made together.
    if (h.ctx.deps.db.dialect === 'postgres') expect(made.batches).toBeLessThan(10);
  });

  it('a crowded amount: the batch hands out its last free codes from one read of the range and refuses the rest itself', async () => {
    await setup();
    const code = parseQris(h.seeded.merchant.qris_static);
    const amount = 42_000;
    const future = h.ctx.deps.now() + 3_600_000;
    // 45 of the 50 codes held: most creates' 8 random candidates are all held.
    await hold(
      amount,
      Array.from({ length: 45 }, (_, i) => i + 1),
      future,
    );
    const before = { ...h.ctx.deps.state.creates.stats };
    const aloneCalls: number[] = [];
    const settled = await Promise.allSettled(
      Array.from({ length: 8 }, () =>
        createInBatch(h.ctx.deps, { input: input(amount), code, low: 1, high: 50 }, async (c) => {
          aloneCalls.push(c.input.amount);
          throw new Error('not expected');
        }),
      ),
    );
    expect(aloneCalls).toEqual([]);
    const made = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const refused = settled.flatMap((r) =>
      r.status === 'rejected' ? [r.reason as { code: string; details?: { retryAfter?: number } }] : [],
    );
    expect(made.map((t) => t.unique_code).sort((a, b) => a - b)).toEqual([46, 47, 48, 49, 50]);
    expect(refused.map((e) => e.code)).toEqual([
      'unique_code_exhausted',
      'unique_code_exhausted',
      'unique_code_exhausted',
    ]);
    expect(delta(before, { ...h.ctx.deps.state.creates.stats })).toEqual({
      batches: 1,
      made: 5,
      handedOn: 0,
      refused: 3,
      failed: 0,
    });
    const stored = await h.ctx.deps.db
      .selectFrom('reserved_totals')
      .select('transaction_id')
      .where(
        'transaction_id',
        'in',
        made.map((t) => t.id),
      )
      .execute();
    expect(stored).toHaveLength(5);
  });

  it('a crowded amount with lapsed holds: the batch leaves those creates to the one-by-one path, which reclaims', async () => {
    // A range wide enough for plain creates to be batched (narrow ones are read whole, one by one).
    await setup({ UNIQUE_CODE_MIN: '1', UNIQUE_CODE_MAX: '100' });
    const amount = 43_000;
    await hold(
      amount,
      Array.from({ length: 95 }, (_, i) => i + 1),
      h.ctx.deps.now() + 3_600_000,
    );
    await hold(amount, [96, 97, 98, 99, 100], h.ctx.deps.now() - 1000);
    const before = { ...h.ctx.deps.state.creates.stats };
    const rows = (await Promise.all(Array.from({ length: 4 }, () => createTransaction(h.ctx.deps, input(amount))))).map(
      (r) => r.transaction,
    );
    // However the four split into batches (on PostgreSQL they often arrive one at a time), no batch made
    // or refused any: every code has a row, and the lapsed ones are the one-by-one path's to reclaim.
    const d = delta(before, { ...h.ctx.deps.state.creates.stats });
    expect(d).toMatchObject({ made: 0, refused: 0, failed: 0 });
    if (!onPostgres) expect(d.handedOn).toBe(4);
    expect(rows.map((t) => t.unique_code).every((c) => c >= 96)).toBe(true);
    expect(new Set(rows.map((t) => t.unique_code)).size).toBe(4);
  });

  it('each batched row carries its own dynamic QRIS of its total, and e-mails get their invoice', async () => {
    await setup();
    const amounts = [10_000, 10_000, 25_500, 99_000];
    const before = { ...h.ctx.deps.state.creates.stats };
    const results = await Promise.all(
      amounts.map((a, i) =>
        createTransaction(h.ctx.deps, input(a, { email: i % 2 === 0 ? `buyer${i}@example.com` : null })),
      ),
    );
    // (How many joined one batch depends on when each reached it; none may have failed.)
    expect(delta(before, { ...h.ctx.deps.state.creates.stats }).failed).toBe(0);
    for (const [i, r] of results.entries()) {
      const t = r.transaction;
      expect(t.amount).toBe(amounts[i]);
      expect(t.total_amount).toBe(amounts[i]! + t.unique_code);
      expect(parseQris(t.qris).amount).toBe(t.total_amount);
      const stored = await h.ctx.deps.db
        .selectFrom('transactions')
        .selectAll()
        .where('id', '=', t.id)
        .executeTakeFirstOrThrow();
      expect(stored).toEqual(t);
    }
    const emails = await h.ctx.deps.db
      .selectFrom('emails')
      .select(['transaction_id', 'kind', 'recipient'])
      .orderBy('recipient')
      .execute();
    expect(emails).toEqual([
      { transaction_id: results[0]!.transaction.id, kind: 'invoice', recipient: 'buyer0@example.com' },
      { transaction_id: results[2]!.transaction.id, kind: 'invoice', recipient: 'buyer2@example.com' },
    ]);
  });

  it('two gateways on one database creating the same amount at once never share a total', async () => {
    await setup({ UNIQUE_CODE_MIN: '1', UNIQUE_CODE_MAX: '120' });
    // A second connection (pool) of its own, as another process would have; SQLite serialises the two
    // writers with its file lock, PostgreSQL with the primary key.
    const second = openDatabase(h.ctx.databaseUrl);
    try {
      const otherDeps = { ...h.ctx.deps, db: second, state: newServiceState() };
      const settled = await Promise.allSettled(
        Array.from({ length: 140 }, (_, i) => createTransaction(i % 2 === 0 ? h.ctx.deps : otherDeps, input(60_000))),
      );
      const ok = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.transaction] : []));
      const failed = settled.flatMap((s) => (s.status === 'rejected' ? [(s.reason as { code: string }).code] : []));
      expect(new Set(ok.map((t) => t.total_amount)).size).toBe(ok.length);
      expect(ok.length).toBe(120);
      expect([{ ...h.ctx.deps.state.creates.stats }.failed, otherDeps.state.creates.stats.failed]).toEqual([0, 0]);
      expect(new Set(failed)).toEqual(new Set(['unique_code_exhausted']));
      // No transaction row without its reserved total, whichever gateway won each total.
      const stored = await h.ctx.deps.db.selectFrom('transactions').select('id').where('amount', '=', 60_000).execute();
      expect(stored.map((r) => r.id).sort()).toEqual(ok.map((t) => t.id).sort());
    } finally {
      await second.close();
    }
  });

  it.runIf(onPostgres)(
    'a reservation another writer takes after the batch read it as free: no row or invoice is left, the create is handed on',
    async () => {
      await setup({ UNIQUE_CODE_MIN: '1', UNIQUE_CODE_MAX: '80' });
      const amount = 70_000;
      // Another writer reserves every code in a transaction it has not committed: the batch's read (read
      // committed) sees them all free, and its insert waits on those keys.
      const other = new pg.Client({ connectionString: h.ctx.databaseUrl });
      await other.connect();
      try {
        await other.query('begin');
        for (let c = 1; c <= 80; c++) {
          await other.query(
            'insert into reserved_totals (merchant_id, mode, total_amount, transaction_id, reserved_until) values ($1, $2, $3, $4, $5)',
            [h.seeded.merchant.id, 'test', amount + c, `trx_other${c}`, h.ctx.deps.now() + 3_600_000],
          );
        }
        const before = { ...h.ctx.deps.state.creates.stats };
        const code = parseQris(h.seeded.merchant.qris_static);
        const handedOn: string[] = [];
        const creates = Promise.allSettled(
          Array.from({ length: 3 }, (_, i) =>
            createInBatch(
              h.ctx.deps,
              { input: input(amount, { email: `o'brien${i}@example.com` }), code, low: 1, high: 80 },
              async (c) => {
                handedOn.push(c.input.email!);
                throw new Error('handed on');
              },
            ),
          ),
        );
        // Let the batch read and reach its insert, then commit the other writer's reservations.
        // (Asked on a connection of its own: pg_stat_activity holds still inside a transaction.)
        await waitFor(
          async () =>
            (
              await sql<{
                n: number;
              }>`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like ${'insert into "reserved_totals"%'}`.execute(
                h.ctx.deps.db,
              )
            ).rows[0]!.n > 0,
        );
        await other.query('commit');
        const settled = await creates;
        expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'rejected']);
        // The batch committed, found all three totals lost and handed each create on to the one-by-one path.
        expect(handedOn.sort()).toEqual(["o'brien0@example.com", "o'brien1@example.com", "o'brien2@example.com"]);
        expect(delta(before, { ...h.ctx.deps.state.creates.stats })).toEqual({
          batches: 1,
          made: 0,
          handedOn: 3,
          refused: 0,
          failed: 0,
        });
        expect(
          await h.ctx.deps.db.selectFrom('transactions').select('id').where('amount', '=', amount).execute(),
        ).toEqual([]);
        expect(
          await h.ctx.deps.db.selectFrom('emails').select('id').where('recipient', 'like', "o'brien%").execute(),
        ).toEqual([]);
      } finally {
        await other.query('rollback').catch(() => {});
        await other.end();
      }
    },
  );
});

const delta = (a: CreateBatchStats, b: CreateBatchStats): CreateBatchStats => ({
  batches: b.batches - a.batches,
  made: b.made - a.made,
  handedOn: b.handedOn - a.handedOn,
  refused: b.refused - a.refused,
  failed: b.failed - a.failed,
});

async function waitFor(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}
