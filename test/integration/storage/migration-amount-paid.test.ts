// Migration 017 (issue 28, section 2): a transaction paid before it existed was paid exactly, so it gets
// amount_paid = its total; any other gets 0, and nothing is underpaid or overpaid.
import { afterEach, describe, expect, it } from 'vitest';
import * as amountPaid from '../../../src/storage/migrations/017-amount-paid.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { insertRows, transactionRow } from '../../helpers/transaction-rows.js';

describe('migration 017-amount-paid', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('down and up again: paid rows receive their total, the others 0', async () => {
    t = await createTestApp();
    const now = t.clock.now();
    const paid = transactionRow(t.merchant.id, now - 2000, { status: 'paid', paid_at: now - 1000 });
    const pending = transactionRow(t.merchant.id, now - 3000);
    const expired = transactionRow(t.merchant.id, now - 4000, { status: 'expired' });
    await insertRows(t.deps, [paid, pending, expired]);
    await amountPaid.down(t.deps.db);
    await amountPaid.up(t.deps.db);
    const rows = await t.deps.db
      .selectFrom('transactions')
      .select(['id', 'amount_paid', 'underpaid', 'overpaid'])
      .orderBy('created_at', 'desc')
      .execute();
    expect(rows).toEqual([
      { id: paid.id, amount_paid: paid.total_amount, underpaid: 0, overpaid: 0 },
      { id: pending.id, amount_paid: 0, underpaid: 0, overpaid: 0 },
      { id: expired.id, amount_paid: 0, underpaid: 0, overpaid: 0 },
    ]);
  });
});
