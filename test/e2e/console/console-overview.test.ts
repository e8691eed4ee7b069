import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowserApp } from '../../helpers/browser.js';
import { addOperator } from '../../helpers/console.js';
import { loggedIn, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { createInput } from '../../helpers/context.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import { formatRupiah } from '../../../src/domain/money.js';
import { formatDay } from '../../../src/presentation/format.js';

// A new operator's overview after trying the sandbox (issue 26, items 7 and 8): it shows test mode by
// default and says so, and its chart can be read, on a phone and on a desktop.
describe('the overview of a gateway that has only sandbox payments', () => {
  const ctx = useBrowserApp();
  const CAPTION = 'Paid per day, last 30 days (WIB)';
  let paidToday = 0;

  beforeAll(async () => {
    const { t } = ctx;
    await addOperator(t.deps, 'new-ops@example.test');
    for (const amount of [10_000, 20_000, 30_000]) {
      const { transaction } = await createTransaction(t.deps, createInput(t.merchant.id, amount));
      await simulatePayment(t.deps, { merchantId: t.merchant.id, mode: 'test' }, transaction.id);
      paidToday += transaction.total_amount;
    }
  });

  const overflow = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

  for (const viewport of VIEWPORTS) {
    it(`shows test mode by default, says so, and its chart names each day's figures (${viewport.name})`, async () => {
      const page = await loggedIn(ctx.browser, ctx.base, viewport, 'new-ops@example.test');
      // Test mode, not live's "Rp 0", in figures and in words.
      await expect(
        page.getByText('These figures are test mode: sandbox payments, no real money.').isVisible(),
      ).resolves.toBe(true);
      await expect(page.getByText('Live mode has nothing in the last 30 days.').isVisible()).resolves.toBe(true);
      expect(await page.getByLabel('Mode').inputValue()).toBe('test');
      const today = page.locator('.stat', { hasText: 'Paid today' });
      await expect(today.locator('.value').textContent()).resolves.toBe(formatRupiah(paidToday));
      await expect(today.locator('.muted').textContent()).resolves.toBe('3 payments');

      // Today's bar is an image named by its figures; the scale's top is its sum.
      const chart = page.getByRole('group', { name: CAPTION });
      const name = `${formatDay(ctx.t.clock.ms, 'en')}: 3 paid, ${formatRupiah(paidToday)}`;
      const bar = chart.getByRole('img', { name, exact: true });
      expect(await bar.count()).toBe(1);
      await expect(chart.locator('text.axis').textContent()).resolves.toBe(formatRupiah(paidToday));
      // Its figure appears over the chart when the bar has the keyboard's focus, and on hover.
      const figure = bar.locator('text.figure');
      expect(await figure.isVisible()).toBe(false);
      await bar.focus();
      expect(await figure.isVisible()).toBe(true);
      await page.screenshot({ path: join(SHOTS, `overview-sandbox-${viewport.name}.png`), fullPage: true });
      // Another bar under the pointer shows its own figure, and only its own.
      await bar.blur();
      const first = chart.getByRole('img').first();
      await first.hover();
      expect(await first.locator('text.figure').isVisible()).toBe(true);
      expect(await figure.isVisible()).toBe(false);
      await bar.hover();
      expect(await figure.isVisible()).toBe(true);

      // Each tick sits centred under its own bar, wholly on screen; every label is at least 11 px.
      const layout = await page.evaluate(() =>
        Array.from(document.querySelectorAll('svg.chart text.tick'), (tick) => {
          const t = tick.getBoundingClientRect();
          const b = tick.previousElementSibling!.querySelector('rect.fill')!.getBoundingClientRect();
          return { tick: t.left + t.width / 2, bar: b.left + b.width / 2, left: t.left, right: t.right };
        }),
      );
      expect(layout.length).toBe(5);
      for (const l of layout) {
        expect(Math.abs(l.tick - l.bar)).toBeLessThan(1);
        expect(l.left).toBeGreaterThanOrEqual(0);
        expect(l.right).toBeLessThanOrEqual(viewport.width);
      }
      const sizes = await page.evaluate(() =>
        Array.from(
          document.querySelectorAll<SVGTextElement>('svg.chart text'),
          (text) => Number.parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM()!.a,
        ),
      );
      expect(sizes.length).toBeGreaterThan(0);
      for (const size of sizes) expect(size).toBeGreaterThanOrEqual(11);

      // The same figures as a table, today's row last.
      await page.getByText('The figures as a table').click();
      const rows = page.locator('.chart-table tbody tr');
      expect(await rows.count()).toBe(30);
      const cells = await rows.last().locator('td').allTextContents();
      expect(cells).toEqual([formatDay(ctx.t.clock.ms, 'en'), '3', formatRupiah(paidToday)]);
      expect(await overflow(page)).toBeLessThanOrEqual(0);

      // Live mode, one link away: its empty chart says so in a sentence instead of drawing a blank box.
      await page.getByRole('link', { name: 'Show live mode' }).click();
      await page.waitForURL(/mode=live/);
      await expect(page.getByText('These figures are live mode: real payments.').isVisible()).resolves.toBe(true);
      await expect(page.getByText('Nothing was paid in live mode in the last 30 days.').isVisible()).resolves.toBe(
        true,
      );
      expect(await page.getByRole('group', { name: CAPTION }).count()).toBe(0);
      await expect(today.locator('.value').textContent()).resolves.toBe(formatRupiah(0));
      await page.screenshot({ path: join(SHOTS, `overview-live-empty-${viewport.name}.png`), fullPage: true });
      // Asked for, live stays: back to test only by the link.
      await page.getByRole('link', { name: 'Show test mode' }).click();
      await page.waitForURL(/mode=test/);
      await expect(today.locator('.muted').textContent()).resolves.toBe('3 payments');
      await page.close();
    });
  }

  it('says which mode it shows in Indonesian too', async () => {
    const page = await loggedIn(ctx.browser, ctx.base, VIEWPORTS[0], 'new-ops@example.test');
    await page.getByRole('link', { name: 'Indonesia' }).click();
    await page.getByRole('heading', { name: 'Ringkasan' }).waitFor();
    await expect(
      page.getByText('Angka ini dari mode uji: pembayaran sandbox, tanpa uang sungguhan.').isVisible(),
    ).resolves.toBe(true);
    await page.getByRole('link', { name: 'Tampilkan mode produksi' }).click();
    await expect(
      page.getByText('Belum ada yang dibayar di mode produksi dalam 30 hari terakhir.').isVisible(),
    ).resolves.toBe(true);
    // Back to English for whoever logs in next with this browser's cookies (a page of its own each test).
    await page.getByRole('link', { name: 'English' }).click();
    await page.close();
  });
});
