// storedPaymentKeys (storage/queries/payments.ts): the read a batch of payment reports makes to learn
// which of its payments are stored already. It answers exactly the stored keys among those asked (the
// pair, not either half), and it reads each key through the unique index even when the database's
// statistics have never seen the source: PostgreSQL once scanned every payment of a source added since
// the last ANALYZE for each read, 6 ms per read of 32 keys in a payment storm. On the suite's database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { storedPaymentKeys } from '../../../src/storage/queries/payments.js';
import type { PaymentsTable } from '../../../src/storage/schema.js';
import { createTestApp, onPostgres, type TestApp } from '../../helpers/context.js';
import { captureStatement, rowsTouched, sqlitePlan } from '../../helpers/explain-statement.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

const payment = (source: string, sourcePaymentId: string, i: number): PaymentsTable => ({
  id: `pay_${source}_${i}`,
  merchant_id: t.merchant.id,
  mode: 'live',
  source,
  source_payment_id: sourcePaymentId,
  amount: 1000 + i,
  paid_at: 1_700_000_000_000,
  received_at: 1_700_000_000_000,
  reference: null,
  payer_name: null,
  issuer: null,
  status: 'unmatched',
  reason: null,
  transaction_id: null,
  compared_transaction_id: null,
  raw: null,
});

async function store(rows: PaymentsTable[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await t.deps.db
      .insertInto('payments')
      .values(rows.slice(i, i + 200))
      .execute();
  }
}

const key = (source: string, sourcePaymentId: string) => ({ source, sourcePaymentId });
const joined = (k: { source: string; sourcePaymentId: string }) => `${k.source}\u0000${k.sourcePaymentId}`;

describe('the stored keys a batch of payment reports reads', () => {
  it('are exactly the stored pairs among those asked, for lists of any length', async () => {
    await store([
      payment('src_a', 'p1', 1),
      payment('src_a', 'p2', 2),
      payment('src_b', 'p1', 3),
      payment('src_b', 'p3', 4),
    ]);
    const stored = new Set(['src_a\u0000p1', 'src_a\u0000p2', 'src_b\u0000p1', 'src_b\u0000p3']);
    const pool = [
      key('src_a', 'p1'),
      key('src_a', 'p3'), // the id is stored, but for the other source
      key('src_b', 'p1'),
      key('src_b', 'p2'), // the same
      key('src_c', 'p1'),
      key('src_a', 'p2'),
      key('src_b', 'p3'),
    ];
    for (const length of [1, 2, 3, 7, 8, 31, 64, 65, 100]) {
      const keys = Array.from({ length }, (_, i) => pool[(i * 3 + length) % pool.length]!);
      const expected = new Set(keys.map(joined).filter((k) => stored.has(k)));
      expect(await storedPaymentKeys(t.deps.db, keys)).toStrictEqual(expected);
    }
    expect(await storedPaymentKeys(t.deps.db, [])).toStrictEqual(new Set());
  });

  it('reads each key through the unique index, also while the table is small enough to scan', async () => {
    // A few thousand payments, statistics up to date: a plain join of the keys to payments was planned as a
    // scan of the whole table (1-2 ms, where the lookups take 0.2).
    await store(Array.from({ length: 3000 }, (_, i) => payment('src_small', `small-${i}`, i)));
    await sql`analyze payments`.execute(t.deps.db);
    const keys = Array.from({ length: 32 }, (_, i) => key('src_small', `small-${i * 90}`));
    await expectOneLookupPerKey(keys);
  });

  it('reads each key through the unique index, also for a source the statistics have not seen', async () => {
    // Statistics taken while the source had no payments, then 20,000 of its payments, as a storm from a
    // source added after the last ANALYZE leaves them.
    await t.deps.db.deleteFrom('payments').execute();
    await store(Array.from({ length: 50 }, (_, i) => payment('src_old', `old-${i}`, i)));
    await sql`analyze payments`.execute(t.deps.db);
    await store(Array.from({ length: 20_000 }, (_, i) => payment('src_storm', `storm-${i}`, i)));
    const keys = Array.from({ length: 32 }, (_, i) => key('src_storm', `storm-${i * 600}`));
    // The old statement's plan read every payment of the source (20,000) and filtered them.
    await expectOneLookupPerKey(keys);
  });
});

/**
 * storedPaymentKeys answers every key (all are stored) and reads each through the unique index: on
 * PostgreSQL no row filtered away and no more rows read than keys, on SQLite an index search on both columns.
 */
async function expectOneLookupPerKey(keys: { source: string; sourcePaymentId: string }[]): Promise<void> {
  let answer: Set<string> | undefined;
  const statement = await captureStatement(t.deps.db, async () => {
    answer = await storedPaymentKeys(t.deps.db, keys);
  });
  expect(answer).toStrictEqual(new Set(keys.map(joined)));
  if (onPostgres) {
    const touched = await rowsTouched(t.deps.db, statement, 'payments');
    expect(touched.discarded).toBe(0);
    expect(touched.read).toBeLessThanOrEqual(keys.length);
  } else {
    expect((await sqlitePlan(t.deps.db, statement)).join(' | ')).toMatch(
      /USING (COVERING )?INDEX \S+ \(source=\? AND source_payment_id=\?\)/,
    );
  }
}
