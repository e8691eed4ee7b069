// readReservationsAt (storage/queries/reservations.ts): the read every create batch makes of the totals it
// might take. It answers the merchant's reservations (of that mode) of exactly the totals asked, and it
// looks each total up through the primary key even when the statistics think the merchant has few: on
// PostgreSQL `total_amount IN (...)` read every reservation of such a merchant and filtered them, for
// each create batch. On the suite's database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { readReservationsAt } from '../../../src/storage/queries/reservations.js';
import type { ReservedTotalsTable } from '../../../src/storage/schema.js';
import { createTestApp, onPostgres, seedMerchant, type TestApp } from '../../helpers/context.js';
import { captureStatement, rowsTouched, sqlitePlan } from '../../helpers/explain-statement.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

async function reserve(rows: ReservedTotalsTable[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await t.deps.db
      .insertInto('reserved_totals')
      .values(rows.slice(i, i + 500))
      .execute();
  }
}

const reservation = (merchantId: string, mode: 'live' | 'test', total: number): ReservedTotalsTable => ({
  merchant_id: merchantId,
  mode,
  total_amount: total,
  transaction_id: `trx_${merchantId}_${mode}_${total}`,
  reserved_until: 1_700_000_000_000 + total,
});

const byTotal = (list: { total_amount: number; reserved_until: number }[]) =>
  [...list]
    .map((r) => ({ total_amount: Number(r.total_amount), reserved_until: Number(r.reserved_until) }))
    .sort((a, b) => a.total_amount - b.total_amount);

describe('the reservations a create batch reads', () => {
  it("are the merchant's, of that mode, of exactly the totals asked, for lists of any length", async () => {
    const other = await seedMerchant(t.deps, 1, 'Other Merchant');
    const mine = t.merchant.id;
    await reserve([
      reservation(mine, 'live', 10_001),
      reservation(mine, 'live', 10_002),
      reservation(mine, 'test', 10_003),
      reservation(other.merchant.id, 'live', 10_004),
      reservation(mine, 'live', 10_005),
    ]);
    const held = [10_001, 10_002, 10_005];
    for (const length of [1, 2, 3, 7, 8, 33, 64, 100]) {
      const totals = Array.from({ length }, (_, i) => 10_000 + ((i * 7 + length) % 9));
      const expected = held
        .filter((total) => totals.includes(total))
        .map((total) => ({ total_amount: total, reserved_until: 1_700_000_000_000 + total }));
      expect(byTotal(await readReservationsAt(t.deps.db, mine, 'live', totals))).toStrictEqual(expected);
    }
    expect(await readReservationsAt(t.deps.db, mine, 'test', [10_001, 10_002])).toStrictEqual([]);
    expect(byTotal(await readReservationsAt(t.deps.db, mine, 'test', [10_003]))).toStrictEqual([
      { total_amount: 10_003, reserved_until: 1_700_000_010_003 },
    ]);
  });

  it('looks each total up by the primary key, also for a merchant the statistics think has few', async () => {
    // Statistics taken while the merchant had no reservations, then 20,000 of them: a flash sale since
    // the last ANALYZE.
    const sale = await seedMerchant(t.deps, 2, 'Flash Sale');
    // Only one merchant's reservations when the statistics are taken, so they know of no other.
    await t.deps.db.deleteFrom('reserved_totals').execute();
    await reserve(Array.from({ length: 50 }, (_, i) => reservation(t.merchant.id, 'live', 500_000 + i)));
    await sql`analyze reserved_totals`.execute(t.deps.db);
    await reserve(Array.from({ length: 20_000 }, (_, i) => reservation(sale.merchant.id, 'live', 1_000_000 + i)));
    const totals = Array.from({ length: 64 }, (_, i) => 1_000_000 + i * 300 + (i % 2 === 0 ? 0 : 20_000_000));

    let answer: { total_amount: number; reserved_until: number }[] = [];
    const statement = await captureStatement(t.deps.db, async () => {
      answer = await readReservationsAt(t.deps.db, sale.merchant.id, 'live', totals);
    });
    // The even ones are held; the odd ones are far above anything reserved.
    expect(byTotal(answer).map((r) => r.total_amount)).toStrictEqual(totals.filter((_, i) => i % 2 === 0));

    if (onPostgres) {
      const touched = await rowsTouched(t.deps.db, statement, 'reserved_totals');
      expect(touched.discarded).toBe(0);
      expect(touched.read).toBeLessThanOrEqual(totals.length);
    } else {
      expect((await sqlitePlan(t.deps.db, statement)).join(' | ')).toMatch(
        /USING (COVERING )?INDEX \S+ \(merchant_id=\? AND mode=\? AND total_amount=\?\)/,
      );
    }
  });
});
