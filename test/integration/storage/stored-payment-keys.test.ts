// storedPaymentKeys (storage/queries/payments.ts): the read a batch of payment reports makes to learn
// which of its payments are stored already. It answers exactly the stored keys among those asked (the
// pair, not either half), and it reads each key through the unique index even when the database's
// statistics have never seen the source: PostgreSQL once scanned every payment of a source added since
// the last ANALYZE for each read, 6 ms per read of 32 keys in a payment storm. On the suite's database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { CompiledQuery } from 'kysely';
import { Database } from '../../../src/storage/database.js';
import { storedPaymentKeys } from '../../../src/storage/queries/payments.js';
import type { PaymentsTable } from '../../../src/storage/schema.js';
import { createTestApp, onPostgres, type TestApp } from '../../helpers/context.js';

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

/** The statement storedPaymentKeys sent, with its values, whichever path it took. */
async function capture(run: () => Promise<unknown>): Promise<{ sql: string; parameters: readonly unknown[] }> {
  const db = t.deps.db;
  const seen: { sql: string; parameters: readonly unknown[] }[] = [];
  const executor = db.getExecutor();
  const original = executor.executeQuery;
  executor.executeQuery = (async (query: CompiledQuery) => {
    seen.push({ sql: query.sql, parameters: query.parameters });
    return original.call(executor, query);
  }) as typeof executor.executeQuery;
  const direct = db instanceof Database ? db.directReads : undefined;
  const all = direct?.all;
  if (direct && all) {
    direct.all = (text: string, parameters: readonly unknown[]) => {
      seen.push({ sql: text, parameters });
      return all.call(direct, text, parameters);
    };
  }
  try {
    await run();
  } finally {
    executor.executeQuery = original;
    if (direct && all) direct.all = all;
  }
  expect(seen).toHaveLength(1);
  return seen[0]!;
}

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

  it('reads each key through the unique index, also for a source the statistics have not seen', async () => {
    // Statistics taken while the source had no payments, then 20,000 of its payments, as a storm from a
    // source added after the last ANALYZE leaves them.
    await store(Array.from({ length: 50 }, (_, i) => payment('src_old', `old-${i}`, i)));
    await sql`analyze payments`.execute(t.deps.db);
    await store(Array.from({ length: 20_000 }, (_, i) => payment('src_storm', `storm-${i}`, i)));
    const keys = Array.from({ length: 32 }, (_, i) => key('src_storm', `storm-${i * 600}`));

    let answer: Set<string> | undefined;
    const statement = await capture(async () => {
      answer = await storedPaymentKeys(t.deps.db, keys);
    });
    expect(answer).toStrictEqual(new Set(keys.map(joined)));

    if (onPostgres) {
      const [row] = (
        await sql
          .raw<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${inlined(statement)}`)
          .execute(t.deps.db)
      ).rows;
      const rowsTouched = walk((row!['QUERY PLAN'] as [{ Plan: PlanNode }])[0].Plan);
      // The old statement's plan read every payment of the source (20,000) and filtered them.
      expect(rowsTouched.removedByFilter).toBe(0);
      expect(rowsTouched.paymentsRead).toBeLessThanOrEqual(keys.length);
    } else {
      const plan = (
        await sql.raw<{ detail: string }>(`explain query plan ${inlined(statement)}`).execute(t.deps.db)
      ).rows.map((r) => r.detail);
      const paymentsStep = plan.find((d) => /\bpayments\b|\bp\b/.test(d) && /INDEX/.test(d));
      expect(plan.join(' | ')).toMatch(/USING (COVERING )?INDEX \S+ \(source=\? AND source_payment_id=\?\)/);
      expect(paymentsStep).toBeDefined();
    }
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** The rows the plan's scans of payments returned and the rows any node filtered out. */
function walk(node: PlanNode): { paymentsRead: number; removedByFilter: number } {
  let paymentsRead =
    node['Relation Name'] === 'payments' ? (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1) : 0;
  let removedByFilter = (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
  for (const child of node.Plans ?? []) {
    const below = walk(child);
    paymentsRead += below.paymentsRead;
    removedByFilter += below.removedByFilter;
  }
  return { paymentsRead, removedByFilter };
}

/** The statement with its values written in as literals (they are plain ids here), for EXPLAIN. */
function inlined(statement: { sql: string; parameters: readonly unknown[] }): string {
  const literal = (value: unknown) => {
    if (typeof value !== 'string' || !/^[A-Za-z0-9_-]+$/.test(value))
      throw new Error(`unexpected value ${String(value)}`);
    return `'${value}'`;
  };
  if (onPostgres)
    return statement.sql.replace(/\$(\d+)/g, (_, n: string) => literal(statement.parameters[Number(n) - 1]));
  let i = 0;
  return statement.sql.replace(/\?/g, () => literal(statement.parameters[i++]));
}
