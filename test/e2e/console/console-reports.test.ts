// The console's reports in a real Chromium, at a phone's size and a desktop's: a merchant's owner opens
// Reports from the navigation, sees this WIB month so far by day with its totals, picks another range by
// the form's labels and downloads the CSV of it. Another merchant's report is a 404 to the owner, and the
// page is a 404 to a cashier.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { addUser } from '../../../src/services/users/add-user.js';
import { useBrowserApp } from '../../helpers/browser.js';
import { addMerchantUser, PASSWORD, TEST_ACTOR } from '../../helpers/console.js';
import { loggedIn, openSection, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { createInput, seedMerchant } from '../../helpers/context.js';

const HOUR = 3_600_000;
/** Midnight WIB starting 2026-10-`d`. */
const wibMidnight = (d: number) => Date.UTC(2026, 9, d) - 7 * HOUR;

describe('console reports in a real browser', () => {
  const ctx = useBrowserApp();
  let other = '';
  let paidOn3rd = 0;
  let cashierSale = 0;

  beforeAll(async () => {
    const { t } = ctx;
    await addMerchantUser(t.deps, [t.merchant.id], 'owner@warung.test');
    const cashier = await addUser(
      t.deps,
      { email: 'kasir@warung.test', password: PASSWORD, role: 'cashier', merchantIds: [t.merchant.id] },
      TEST_ACTOR,
    );
    other = (await seedMerchant(t.deps, 1, 'Toko Lain')).merchant.id;
    // Two live sales on 3 October (WIB), one on 2 September; "now" is 15 October, 12:00 WIB.
    for (const [at, amount] of [
      [wibMidnight(3) + 10 * HOUR, 25_000],
      [wibMidnight(3) + 11 * HOUR, 15_000],
      [wibMidnight(-28) + 10 * HOUR, 40_000],
    ] as const) {
      t.clock.ms = at;
      // The 15.000 one is a cashier's sale at the point of sale.
      const sale = amount === 15_000 ? { sale: { userId: cashier.id, email: cashier.email, description: null } } : {};
      const { transaction } = await createTransaction(
        t.deps,
        createInput(t.merchant.id, amount, { mode: 'live', ...sale }),
      );
      if (amount === 15_000) cashierSale = transaction.total_amount;
      await recordPayment(t.deps, {
        merchantId: t.merchant.id,
        mode: 'live',
        source: 'simulator',
        sourcePaymentId: `r${amount}`,
        amount: transaction.total_amount,
        paidAt: at + 60_000,
        trxid: transaction.id,
      });
      if (at < wibMidnight(4) && at > wibMidnight(1)) paidOn3rd += transaction.total_amount;
    }
    t.clock.ms = wibMidnight(15) + 12 * HOUR;
  });

  const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  const rupiah = (n: number) => `Rp${n.toLocaleString('de-DE')}`;

  for (const size of VIEWPORTS) {
    it(`at ${size.name} size: this month by day with totals, another range, the CSV`, async () => {
      const page = await loggedIn(ctx.browser, ctx.base, size, 'owner@warung.test');
      try {
        await openSection(page, 'Reports');
        await page.getByRole('heading', { level: 1, name: 'Reports' }).waitFor();
        expect(await page.getByLabel('From').inputValue()).toBe('2026-10-01');
        expect(await page.getByLabel('To').inputValue()).toBe('2026-10-15');
        const table = page.getByRole('table', { name: /Daily report/ });
        // 15 days, the empty ones folded: 1-2 October, the 3rd, 4-15 October (on a phone, three cards,
        // not fifteen).
        const rows = table.locator('tbody').getByRole('row');
        expect(await rows.count()).toBe(3);
        expect(await rows.nth(0).innerText()).toMatch(/2026-10-01 – 2026-10-02[\s\S]*No payments \(2 days\)/);
        expect(await rows.nth(2).innerText()).toMatch(/2026-10-04 – 2026-10-15[\s\S]*No payments \(12 days\)/);
        const third = table.getByRole('row').filter({ hasText: '2026-10-03' });
        // Received first, then the two paid; nothing on open transactions, unmatched or returned.
        expect(await third.getByRole('cell').nth(1).innerText()).toBe(rupiah(paidOn3rd));
        expect(await third.getByRole('cell').nth(2).innerText()).toBe('2');
        // Every rupiah received was paid: the two figures are the same amount, both shown.
        for (const row of [third, table.locator('tfoot').getByRole('row')]) {
          const amounts = row.getByText(rupiah(paidOn3rd), { exact: true });
          expect(await amounts.count()).toBe(2);
          for (const cell of await amounts.all()) expect(await cell.isVisible()).toBe(true);
          expect(await row.getByText('Rp0', { exact: true }).count()).toBe(4);
        }
        // The cashier's sales by the cashier's address.
        const byCashier = page.getByRole('table', { name: 'Paid by cashier' });
        expect(
          await byCashier
            .getByRole('row')
            .filter({ hasText: 'kasir@warung.test' })
            .getByText(rupiah(cashierSale), { exact: true })
            .isVisible(),
        ).toBe(true);
        expect(await fitsWidth(page)).toBe(true);
        await page.screenshot({ path: join(SHOTS, `reports-${size.name}.png`), fullPage: true });

        // September: the one sale of the 2nd; its 29 empty days are two lines (the CSV keeps every day).
        await page.getByLabel('From').fill('2026-09-01');
        await page.getByLabel('To').fill('2026-09-30');
        await page.getByRole('button', { name: 'Show' }).click();
        await page.getByRole('table', { name: /2026-09-01 – 2026-09-30/ }).waitFor();
        const september = page
          .getByRole('table', { name: /Daily report/ })
          .locator('tbody')
          .getByRole('row');
        expect(await september.count()).toBe(3);
        expect(await september.nth(0).innerText()).toMatch(/2026-09-01[\s\S]*No payments$/);
        expect(await september.nth(2).innerText()).toMatch(/2026-09-03 – 2026-09-30[\s\S]*No payments \(28 days\)/);

        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('link', { name: 'Download CSV' }).click(),
        ]);
        const csv = readFileSync((await download.path())!, 'utf8')
          .trim()
          .split('\r\n');
        expect(csv[0]).toBe(
          'day,merchant_id,paid_count,paid_sum,refund_count,refunded_sum,unmatched_count,unmatched_sum,by_source,by_cashier,' +
            'received_open_count,received_open_sum,returned_count,returned_sum,received_count,received_sum',
        );
        expect(csv).toHaveLength(31);
        expect(csv.find((line) => line.startsWith('2026-09-02,'))).toMatch(
          /^2026-09-02,[^,]+,1,40\d{3},0,0,0,0,simulator=1\/40\d{3},,0,0,0,0,1,40\d{3}$/,
        );

        // A range that is not one is said on the page, with the form kept.
        await page.getByLabel('From').fill('2026-10-05');
        await page.getByLabel('To').fill('2026-10-01');
        await page.getByRole('button', { name: 'Show' }).click();
        await page
          .getByRole('alert')
          .getByText(/not a valid range/)
          .waitFor();
        expect(await fitsWidth(page)).toBe(true);

        const foreign = await page.goto(`${ctx.base}/dashboard/reports?merchant=${other}`);
        expect(foreign?.status()).toBe(404);
        const foreignCsv = await page.request.get(`${ctx.base}/dashboard/reports.csv?merchant=${other}`);
        expect(foreignCsv.status()).toBe(404);
      } finally {
        await page.close();
      }
    });
  }

  it('is not there for a cashier', async () => {
    const page = await ctx.browser.newPage({ viewport: VIEWPORTS[0] });
    try {
      await page.goto(`${ctx.base}/dashboard`);
      await page.getByLabel('Email').fill('kasir@warung.test');
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(/\/dashboard\/pos/);
      expect((await page.goto(`${ctx.base}/dashboard/reports`))?.status()).toBe(404);
      expect((await page.goto(`${ctx.base}/dashboard/reports.csv`))?.status()).toBe(404);
    } finally {
      await page.close();
    }
  });
});
