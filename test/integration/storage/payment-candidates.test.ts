// paymentCandidatesByAmounts (storage/queries/payments.ts): the read a batch of payment reports makes of
// the transactions holding its amounts. It answers, per amount, the merchant's transaction (of that mode)
// whose reservation of the amount has not run out, once each; and it looks each amount up through the
// primary keys even when the statistics are older than the merchant's reservations. On the suite's database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { paymentCandidatesByAmounts } from '../../../src/storage/queries/payments.js';
import type { ReservedTotalsTable, TransactionsTable } from '../../../src/storage/schema.js';
import { createInput, createTestApp, onPostgres, seedMerchant, type TestApp } from '../../helpers/context.js';
import { captureStatement, rowsTouched, sqlitePlan } from '../../helpers/explain-statement.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

/** Copies of a created transaction, each holding its own total until `until`. */
async function holding(
  template: TransactionsTable,
  merchantId: string,
  mode: 'live' | 'test',
  totals: readonly number[],
  until: number,
): Promise<void> {
  for (let i = 0; i < totals.length; i += 200) {
    const slice = totals.slice(i, i + 200);
    const rows = slice.map((total) => ({
      ...template,
      id: `trx_${merchantId}_${mode}_${total}`,
      merchant_id: merchantId,
      mode,
      total_amount: total,
    }));
    const reservations: ReservedTotalsTable[] = slice.map((total) => ({
      merchant_id: merchantId,
      mode,
      total_amount: total,
      transaction_id: `trx_${merchantId}_${mode}_${total}`,
      reserved_until: until,
    }));
    await t.deps.db.insertInto('transactions').values(rows).execute();
    await t.deps.db.insertInto('reserved_totals').values(reservations).execute();
  }
}

async function template(): Promise<TransactionsTable> {
  return (await createTransaction(t.deps, createInput(t.merchant.id, 12_345))).transaction;
}

const NOW = 1_800_000_000_000;

describe('the candidates a batch of payment reports reads', () => {
  it("are the merchant's transactions of that mode still holding the amounts, once each", async () => {
    const row = await template();
    const other = await seedMerchant(t.deps, 1, 'Other Merchant');
    const mine = t.merchant.id;
    await holding(row, mine, 'live', [20_001, 20_002, 20_003], NOW + 60_000);
    await holding(row, mine, 'live', [20_004], NOW); // run out at NOW
    await holding(row, mine, 'test', [20_005], NOW + 60_000);
    await holding(row, other.merchant.id, 'live', [20_006], NOW + 60_000);

    for (const amounts of [
      [20_001],
      [20_001, 20_002, 20_003, 20_004, 20_005, 20_006, 20_007],
      [20_003, 20_003, 20_001], // a repeat, and a list the padding repeats the last of
      Array.from({ length: 40 }, (_, i) => 20_000 + (i % 8)),
    ]) {
      const found = await paymentCandidatesByAmounts(t.deps.db, { merchantId: mine, mode: 'live', amounts, now: NOW });
      const ids = Object.fromEntries([...found].map(([amount, list]) => [amount, list.map((tx) => tx.id)]));
      const expected = Object.fromEntries(
        [...new Set(amounts)].map((amount) => [
          amount,
          [20_001, 20_002, 20_003].includes(amount) ? [`trx_${mine}_live_${amount}`] : [],
        ]),
      );
      expect(ids).toStrictEqual(expected);
      for (const [, list] of found) for (const tx of list) expect(tx).not.toHaveProperty('reserved_total');
    }
  });

  it('looks each amount up by the primary keys, also with statistics older than the reservations', async () => {
    const row = await template();
    const sale = await seedMerchant(t.deps, 2, 'Flash Sale');
    // Statistics taken while the sale's merchant held nothing, then 20,000 open transactions of its own.
    await t.deps.db.deleteFrom('reserved_totals').execute();
    await holding(
      row,
      t.merchant.id,
      'live',
      Array.from({ length: 50 }, (_, i) => 700_000 + i),
      NOW + 60_000,
    );
    await sql`analyze reserved_totals`.execute(t.deps.db);
    await sql`analyze transactions`.execute(t.deps.db);
    const totals = Array.from({ length: 20_000 }, (_, i) => 1_000_000 + i);
    await holding(row, sale.merchant.id, 'live', totals, NOW + 60_000);
    const amounts = Array.from({ length: 32 }, (_, i) => 1_000_000 + i * 600);

    let found = new Map<number, TransactionsTable[]>();
    const statement = await captureStatement(t.deps.db, async () => {
      found = await paymentCandidatesByAmounts(t.deps.db, {
        merchantId: sale.merchant.id,
        mode: 'live',
        amounts,
        now: NOW,
      });
    });
    expect([...found.values()].map((list) => list.length)).toStrictEqual(amounts.map(() => 1));

    if (onPostgres) {
      for (const table of ['reserved_totals', 'transactions']) {
        const touched = await rowsTouched(t.deps.db, statement, table);
        expect(touched.discarded, table).toBe(0);
        expect(touched.read, table).toBeLessThanOrEqual(amounts.length);
      }
    } else {
      const plan = (await sqlitePlan(t.deps.db, statement)).join(' | ');
      expect(plan).toMatch(/USING (COVERING )?INDEX \S+ \(merchant_id=\? AND mode=\? AND total_amount=\?\)/);
      expect(plan).toMatch(/SEARCH t USING INDEX \S+ \(id=\?\)/);
    }
  });
});
