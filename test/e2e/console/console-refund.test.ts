// Refunds in the console (issue 28, section 1) in a real Chromium, at a phone's size and a desktop's: a
// merchant's owner records a partial refund of a paid static-QRIS transaction by the form's labels, accepts
// the confirmation, and sees the refund listed with its status and what remains prefilled.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { readTransaction } from '../../../src/storage/queries/transactions.js';
import { useBrowserApp } from '../../helpers/browser.js';
import { addMerchantUser } from '../../helpers/console.js';
import { loggedIn, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { createInput } from '../../helpers/context.js';

describe('console: refund a paid transaction in a real browser', () => {
  const ctx = useBrowserApp();

  beforeAll(async () => {
    await addMerchantUser(ctx.t.deps, [ctx.t.merchant.id]);
  });

  for (const size of VIEWPORTS) {
    it(`at ${size.name} size: records a partial refund by labels and roles, then lists it`, async () => {
      const { t } = ctx;
      const tx = (await createTransaction(t.deps, createInput(t.merchant.id, size.name === 'phone' ? 26_000 : 48_000)))
        .transaction;
      await simulatePayment(t.deps, { merchantId: t.merchant.id, mode: 'test' }, tx.id);
      const paid = (await readTransaction(t.deps.db, tx.id))!;
      const received = paid.amount_paid!;

      const page = await loggedIn(ctx.browser, ctx.base, size, 'shop@example.test');
      try {
        await page.goto(`${ctx.base}/dashboard/transactions/${tx.id}`);
        const card = page.locator('#refunds');
        expect(await card.getByRole('heading', { name: 'Refund', exact: true }).isVisible()).toBe(true);
        expect(await card.textContent()).toContain(
          'The gateway cannot move this money: record a refund you paid back yourself',
        );
        const amount = card.getByLabel('Amount to refund (Rp)');
        expect(await amount.inputValue()).toBe(String(received));

        // Without a reason the browser does not send the form.
        await card.getByRole('button', { name: 'Record refund' }).click();
        expect(await card.getByLabel('Reason').evaluate((el) => (el as HTMLInputElement).validity.valueMissing)).toBe(
          true,
        );
        expect((await readTransaction(t.deps.db, tx.id))!.refunded_amount).toBe(0);

        await amount.fill('5000');
        await card.getByLabel('Reason').fill('Barang habis');
        await card.getByLabel('Your reference of the transfer or cash').fill('TRF-123');
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        let asked = '';
        page.once('dialog', (dialog) => {
          asked = dialog.message();
          void dialog.accept();
        });
        await card.getByRole('button', { name: 'Record refund' }).click();

        const done = page.getByRole('status');
        await done.waitFor();
        expect(await done.textContent()).toBe('The refund of Rp5.000 is recorded. The gateway moved no money.');
        // The question names the amount as typed.
        expect(asked).toBe('Refund Rp5.000 to the payer?');
        const listed = page.locator('#refunds li');
        expect(await listed.count()).toBe(1);
        const item = await listed.first().textContent();
        expect(item).toContain('Rp5.000');
        expect(item).toContain('succeeded');
        expect(item).toContain('Barang habis');
        expect(item).toContain('TRF-123');
        expect(await page.locator('#refunds').getByLabel('Amount to refund (Rp)').inputValue()).toBe(
          String(received - 5000),
        );
        await page.locator('#refunds').evaluate((el) => el.scrollIntoView());
        await page.screenshot({ path: join(SHOTS, `refund-${size.name}.png`), fullPage: true });
        expect(await readTransaction(t.deps.db, tx.id)).toMatchObject({
          refunded_amount: 5000,
          refund_held: 0,
          refund_count: 1,
        });
      } finally {
        await page.close();
      }
    });
  }
});
