// Payments that do not fit (issue 28, section 2) in a real Chromium, at a phone's size and a desktop's:
// an unmatched payment Rp123 short of a transaction's total is assigned to it only after the operator
// ticks the confirmation that names the difference.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBrowserApp } from '../../helpers/browser.js';
import { addOperator } from '../../helpers/console.js';
import { loggedIn, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { createInput } from '../../helpers/context.js';
import { formatRupiah } from '../../../src/domain/money.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { readTransaction } from '../../../src/storage/queries/transactions.js';

describe('console: assign a payment with a difference in a real browser', () => {
  const ctx = useBrowserApp();

  beforeAll(async () => {
    await addOperator(ctx.t.deps);
  });

  for (const size of VIEWPORTS) {
    it(`at ${size.name} size: names the difference, refuses to assign unconfirmed, assigns once accepted`, async () => {
      const { t } = ctx;
      const tx = (await createTransaction(t.deps, createInput(t.merchant.id, size.name === 'phone' ? 25_000 : 47_000)))
        .transaction;
      const short = tx.total_amount - 123;
      const reported = await recordPayment(t.deps, {
        merchantId: t.merchant.id,
        mode: 'test',
        source: 'e2e-bank',
        sourcePaymentId: `fit-${size.name}`,
        amount: short,
        paidAt: t.clock.now(),
        payerName: 'Dewi Lestari',
      });
      expect(reported.outcome).toBe('unmatched');

      const page = await loggedIn(ctx.browser, ctx.base, size, 'ops@example.test');
      try {
        await page.goto(`${ctx.base}/dashboard/payments?status=unmatched`);
        const card = page.locator(`#pay-${reported.payment.id}`);
        await card.getByLabel('Transaction', { exact: true }).fill(tx.id);
        // The field suggests the candidates (a datalist): its open list would take the next tap, as it does
        // a person's, so the field is left first.
        await card.getByLabel('Transaction', { exact: true }).blur();
        await card.getByRole('button', { name: 'Assign' }).click();

        // Refused, and the same card now names the difference and asks to accept it.
        const refused = page.getByRole('alert');
        await refused.waitFor();
        expect(await refused.textContent()).toContain(`differs from the total of ${tx.id}. Nothing was changed`);
        const again = page.locator(`#pay-${reported.payment.id}`);
        expect(await again.textContent()).toContain(
          `Payment ${formatRupiah(short)} is Rp123 less than the total ${formatRupiah(tx.total_amount)} of transaction ${tx.id}.`,
        );
        const accept = again.getByRole('checkbox', { name: 'Accept the difference of Rp123' });
        expect(await accept.isChecked()).toBe(false);
        expect(await again.getByLabel('Transaction', { exact: true }).inputValue()).toBe(tx.id);
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

        // Unticked, the browser does not send the form.
        await again.getByRole('button', { name: 'Assign' }).click();
        expect(await accept.evaluate((el) => (el as HTMLInputElement).validity.valueMissing)).toBe(true);
        expect((await readTransaction(t.deps.db, tx.id))!.status).toBe('pending');

        await accept.check();
        await again.evaluate((el) => el.scrollIntoView());
        await page.screenshot({ path: join(SHOTS, `payment-difference-${size.name}.png`), fullPage: true });
        await again.getByRole('button', { name: 'Assign' }).click();
        const done = page.getByRole('status');
        await done.waitFor();
        expect(await done.textContent()).toBe(
          `Payment ${reported.payment.id} now pays ${tx.id}; the transaction is paid, underpaid by Rp123.`,
        );
        expect(await readTransaction(t.deps.db, tx.id)).toMatchObject({
          status: 'paid',
          payment_id: reported.payment.id,
          amount_paid: short,
          underpaid: 123,
          overpaid: 0,
        });
      } finally {
        await page.close();
      }
    });
  }
});
