// Payments that do not fit, the rest (issue 28, section 2) in a real Chromium, at a phone's size and a
// desktop's: an underpaying payment assigned with the transaction kept open for the rest, then a second
// payment that completes it; and a double payment found under its own filter and refunded.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatRupiah } from '../../../src/domain/money.js';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { readTransaction } from '../../../src/storage/queries/transactions.js';
import { useBrowserApp } from '../../helpers/browser.js';
import { addOperator } from '../../helpers/console.js';
import { loggedIn, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { createInput } from '../../helpers/context.js';

describe('console: part payments and double payments in a real browser', () => {
  const ctx = useBrowserApp();
  let seq = 0;

  beforeAll(async () => {
    await addOperator(ctx.t.deps);
  });

  async function stray(amount: number) {
    const { t } = ctx;
    const r = await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'test',
      source: 'e2e-bank',
      sourcePaymentId: `part-double-${++seq}`,
      amount,
      paidAt: t.clock.now(),
      payerName: 'Dewi Lestari',
    });
    return r;
  }

  for (const size of VIEWPORTS) {
    it(`at ${size.name} size: keeps a transaction open after a part payment, and a second payment completes it`, async () => {
      const { t } = ctx;
      const tx = (await createTransaction(t.deps, createInput(t.merchant.id, size.name === 'phone' ? 52_000 : 53_000)))
        .transaction;
      const first = await stray(20_000);
      expect(first.outcome).toBe('unmatched');
      const rest = tx.total_amount - 20_000;
      const page = await loggedIn(ctx.browser, ctx.base, size, 'ops@example.test');
      try {
        await page.goto(`${ctx.base}/dashboard/payments?status=unmatched`);
        const card = page.locator(`#pay-${first.payment.id}`);
        await card.getByLabel('Transaction', { exact: true }).fill(tx.id);
        // The field suggests the candidates (a datalist): its open list would take the next tap, as it does
        // a person's, so the field is left first.
        await card.getByLabel('Transaction', { exact: true }).blur();
        await card.getByRole('button', { name: 'Assign' }).click();
        await page.getByRole('alert').waitFor();

        // The confirmation offers both: accept the difference, or keep it open for the rest.
        const again = page.locator(`#pay-${first.payment.id}`);
        const keep = again.getByRole('button', { name: `Keep it open for the rest (${formatRupiah(rest)})` });
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        await again.evaluate((el) => el.scrollIntoView());
        await page.screenshot({ path: join(SHOTS, `payment-keep-open-${size.name}.png`), fullPage: true });
        await keep.click();
        const kept = page.getByRole('status');
        await kept.waitFor();
        expect(await kept.textContent()).toBe(
          `Payment ${first.payment.id} now counts towards ${tx.id}: received ${formatRupiah(20_000)} of ${formatRupiah(tx.total_amount)}, ${formatRupiah(rest)} still due. The transaction stays open.`,
        );
        expect(await readTransaction(t.deps.db, tx.id)).toMatchObject({
          status: 'pending',
          amount_paid: 20_000,
          underpaid: rest,
          payment_id: null,
        });

        // The transaction's page says what it received and what is still due.
        await page.goto(`${ctx.base}/dashboard/transactions/${tx.id}`);
        const details = await page.locator('dl.fields').first().textContent();
        expect(details).toContain(`Received${formatRupiah(20_000)}`);
        expect(details).toContain(`Still due${formatRupiah(rest)}`);

        // The rest arrives: assigned with no confirmation, it pays the transaction.
        const second = await stray(rest);
        await page.goto(`${ctx.base}/dashboard/payments?status=unmatched`);
        const card2 = page.locator(`#pay-${second.payment.id}`);
        // The kept-open transaction is its one candidate, with what it still needs, and is filled in.
        expect(await card2.locator('tbody tr').count()).toBe(1);
        expect(await card2.locator('tbody tr').textContent()).toContain(`${formatRupiah(rest)} still due`);
        expect(await card2.getByLabel('Transaction', { exact: true }).inputValue()).toBe(tx.id);
        await card2.getByRole('button', { name: 'Assign' }).click();
        const paid = page.getByRole('status');
        await paid.waitFor();
        expect(await paid.textContent()).toBe(
          `Payment ${second.payment.id} now pays ${tx.id}; the transaction is paid.`,
        );
        expect(await readTransaction(t.deps.db, tx.id)).toMatchObject({
          status: 'paid',
          amount_paid: tx.total_amount,
          underpaid: 0,
          overpaid: 0,
          payment_id: second.payment.id,
        });

        // Its page lists both payments.
        await page.goto(`${ctx.base}/dashboard/transactions/${tx.id}`);
        const timeline = await page.locator('ol.timeline').textContent();
        expect(timeline).toContain(first.payment.id);
        expect(timeline).toContain(second.payment.id);
      } finally {
        await page.close();
      }
    });

    it(`at ${size.name} size: Enter with the difference ticked accepts it, and never keeps the transaction open`, async () => {
      const { t } = ctx;
      const tx = (await createTransaction(t.deps, createInput(t.merchant.id, size.name === 'phone' ? 56_000 : 57_000)))
        .transaction;
      const short = await stray(30_000);
      const rest = tx.total_amount - 30_000;
      const page = await loggedIn(ctx.browser, ctx.base, size, 'ops@example.test');
      try {
        await page.goto(`${ctx.base}/dashboard/payments?status=unmatched`);
        const card = page.locator(`#pay-${short.payment.id}`);
        const field = card.getByLabel('Transaction', { exact: true });
        await field.fill(tx.id);
        await field.blur();
        await card.getByRole('button', { name: 'Assign' }).click();
        await page.getByRole('alert').waitFor();

        const again = page.locator(`#pay-${short.payment.id}`);
        await again.getByRole('button', { name: `Keep it open for the rest (${formatRupiah(rest)})` }).waitFor();
        // Enter with nothing ticked sends nothing: the acceptance is required.
        await again.getByLabel('Transaction', { exact: true }).press('Enter');
        expect(
          await again
            .getByLabel(`Accept the difference of ${formatRupiah(rest)}`)
            .evaluate((el) => (el as HTMLInputElement).validity.valueMissing),
        ).toBe(true);
        expect(await readTransaction(t.deps.db, tx.id)).toMatchObject({ status: 'pending', amount_paid: 0 });

        await again.getByLabel(`Accept the difference of ${formatRupiah(rest)}`).check();
        await again.getByLabel('Transaction', { exact: true }).press('Enter');
        const done = page.getByRole('status');
        await done.waitFor();
        expect(await done.textContent()).toBe(
          `Payment ${short.payment.id} now pays ${tx.id}; the transaction is paid, underpaid by ${formatRupiah(rest)}.`,
        );
        expect(await readTransaction(t.deps.db, tx.id)).toMatchObject({
          status: 'paid',
          amount_paid: 30_000,
          underpaid: rest,
          payment_id: short.payment.id,
        });
      } finally {
        await page.close();
      }
    });

    it(`at ${size.name} size: lists a double payment under its filter and refunds it`, async () => {
      const { t } = ctx;
      const tx = (await createTransaction(t.deps, createInput(t.merchant.id, size.name === 'phone' ? 54_000 : 55_000)))
        .transaction;
      expect((await simulatePayment(t.deps, { merchantId: t.merchant.id, mode: 'test' }, tx.id)).outcome).toBe(
        'matched',
      );
      const double = await stray(tx.total_amount);
      expect(double).toMatchObject({ outcome: 'unmatched', reason: 'transaction_already_paid' });

      const page = await loggedIn(ctx.browser, ctx.base, size, 'ops@example.test');
      try {
        await page.goto(`${ctx.base}/dashboard/payments`);
        // The filter submits itself on change.
        await Promise.all([page.waitForURL(/status=double/), page.getByLabel('Status').selectOption('double')]);
        const row = page.locator('tbody tr', { hasText: formatRupiah(tx.total_amount) }).first();
        expect(await row.textContent()).toContain('Double payment');
        expect(await row.getByRole('link', { name: tx.id }).getAttribute('href')).toBe(
          `/dashboard/transactions/${tx.id}`,
        );
        await row.getByRole('link', { name: 'Refund' }).click();

        const card = page.locator(`#pay-${double.payment.id}`);
        expect(await card.getByRole('heading', { level: 3 }).textContent()).toBe(
          `Double payment of ${formatRupiah(tx.total_amount)}`,
        );
        // Nothing unpaid of its amount could take it: only the refund is offered, no assign.
        expect(await card.getByRole('button', { name: 'Assign' }).count()).toBe(0);
        expect(await card.getByLabel('Transaction', { exact: true }).count()).toBe(0);
        const button = card.getByRole('button', { name: `Record refund of ${formatRupiah(tx.total_amount)}` });
        // Without a reason the browser does not send it.
        await button.click();
        expect(await card.getByLabel('Reason').evaluate((el) => (el as HTMLInputElement).validity.valueMissing)).toBe(
          true,
        );
        await card.getByLabel('Reason').fill('Paid twice at the counter');
        await card.getByLabel('Transfer reference (optional)').fill(`TRF-${size.name}`);
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        await card.evaluate((el) => el.scrollIntoView());
        await page.screenshot({ path: join(SHOTS, `payment-double-refund-${size.name}.png`), fullPage: true });
        await button.click();
        const done = page.getByRole('status');
        await done.waitFor();
        expect(await done.textContent()).toBe(
          `Payment ${double.payment.id} (${formatRupiah(tx.total_amount)}, a double payment of ${tx.id}) is recorded as refunded.`,
        );
        const refunded = page.locator('tbody tr', { hasText: tx.id }).first();
        expect(await refunded.textContent()).toContain('refunded');
        expect(await page.locator(`#pay-${double.payment.id}`).count()).toBe(0);
        const rows = await t.deps.db
          .selectFrom('refunds')
          .selectAll()
          .where('payment_id', '=', double.payment.id)
          .execute();
        expect(rows).toMatchObject([
          {
            transaction_id: tx.id,
            amount: tx.total_amount,
            status: 'succeeded',
            recorded: 1,
            reference: `TRF-${size.name}`,
            reason: 'Paid twice at the counter',
          },
        ]);
      } finally {
        await page.close();
      }
    });
  }
});
