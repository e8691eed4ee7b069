import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBrowserApp } from '../../helpers/browser.js';
import { addOperator, PASSWORD } from '../../helpers/console.js';
import { loggedIn, openMenu, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { createInput } from '../../helpers/context.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';

describe('the console in a real browser', () => {
  const ctx = useBrowserApp({ WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8' });

  beforeAll(async () => {
    const { t } = ctx;
    await addOperator(t.deps, 'ops@example.test');
    // A month of sales: a few paid each day on some days, one pending, one payment nobody claimed.
    const today = t.clock.ms;
    for (const [daysAgo, count] of [
      [0, 3],
      [1, 2],
      [3, 4],
      [6, 1],
      [12, 5],
      [20, 2],
      [27, 3],
    ] as const) {
      t.clock.ms = today - daysAgo * 86_400_000;
      for (let i = 0; i < count; i++) {
        const { transaction } = await createTransaction(t.deps, {
          ...createInput(t.merchant.id, 15_000 + i * 5_000 + daysAgo * 1_000),
          mode: 'live',
        });
        await recordPayment(t.deps, {
          merchantId: t.merchant.id,
          mode: 'live',
          source: 'e2e',
          sourcePaymentId: `seed-${daysAgo}-${i}`,
          amount: transaction.total_amount,
          paidAt: t.clock.ms + 60_000,
        });
      }
    }
    t.clock.ms = today;
    await createTransaction(t.deps, { ...createInput(t.merchant.id, 99_000), mode: 'live' });
    await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'live',
      source: 'e2e',
      sourcePaymentId: 'nobody',
      amount: 12_345,
      paidAt: today,
    });
    const sandbox = await createTransaction(t.deps, createInput(t.merchant.id, 20_000));
    await simulatePayment(t.deps, { merchantId: t.merchant.id, mode: 'test' }, sandbox.transaction.id);
  });

  it('refuses a wrong password, then logs in with the right one', async () => {
    const page = await ctx.browser.newPage({ viewport: VIEWPORTS[1] });
    await page.goto(`${ctx.base}/dashboard/transactions`);
    // Logged out: the login form, which brings the person back where they wanted to go.
    await page.getByLabel('Email').fill('ops@example.test');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('The e-mail address or the password is wrong.');
    expect(await page.getByLabel('Email').inputValue()).toBe('ops@example.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/dashboard\/transactions$/);
    await page.close();
  });

  for (const viewport of VIEWPORTS) {
    it(`shows the overview with today's, 7 and 30 days' figures and the chart (${viewport.name})`, async () => {
      const page = await loggedIn(ctx.browser, ctx.base, viewport, 'ops@example.test');
      const stat = (label: string) => page.locator('.stat', { hasText: label }).locator('.value').textContent();
      // Today: 15.000, 20.000, 25.000 plus their unique codes (1 to 999 each).
      const today = Number((await stat('Paid today'))!.replace(/\D/g, ''));
      expect(today).toBeGreaterThan(60_000);
      expect(today).toBeLessThan(60_000 + 3 * 1000);
      await expect(
        page.locator('.stat', { hasText: 'Paid, last 7 days' }).locator('.muted').textContent(),
      ).resolves.toBe('10 payments');
      await expect(
        page.locator('.stat', { hasText: 'Paid, last 30 days' }).locator('.muted').textContent(),
      ).resolves.toBe('20 payments');
      await expect(stat('Pending transactions')).resolves.toBe('1');
      await expect(stat('Unmatched payments')).resolves.toBe('1');
      // A bar a day, each an image named by its figures; 23 days had no sale.
      const chart = page.getByRole('group', { name: 'Paid per day, last 30 days (WIB)' });
      expect(await chart.getByRole('img').count()).toBe(30);
      expect(await chart.getByRole('img', { name: /: 0 paid, Rp\s?0$/ }).count()).toBe(23);
      expect(await chart.locator('rect.fill[height="0"]').count()).toBe(23);
      // Nothing sticks out sideways on a phone.
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(SHOTS, `overview-${viewport.name}.png`), fullPage: true });
      if (viewport.name === 'desktop') await page.screenshot({ path: join(SHOTS, 'overview.png') });
      // Test mode is separate: one sandbox payment.
      await page.getByLabel('Mode').selectOption('test');
      await page.waitForURL(/mode=test/);
      await expect(page.locator('.stat', { hasText: 'Paid today' }).locator('.muted').textContent()).resolves.toBe(
        '1 payments',
      );
      await page.close();
    });
  }

  it('switches to Bahasa Indonesia and back', async () => {
    const page = await loggedIn(ctx.browser, ctx.base, VIEWPORTS[0], 'ops@example.test');
    await page.getByRole('link', { name: 'Indonesia' }).click();
    await page.getByRole('heading', { name: 'Ringkasan' }).waitFor();
    expect(await page.getAttribute('html', 'lang')).toBe('id');
    await openMenu(page);
    await expect(page.getByRole('button', { name: 'Keluar' }).count()).resolves.toBe(1);
    await page.getByRole('link', { name: 'English' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.close();
  });

  it('refuses a form whose CSRF token was tampered with, and changes nothing', async () => {
    const page = await loggedIn(ctx.browser, ctx.base, VIEWPORTS[1], 'ops@example.test');
    await page.evaluate(() => {
      document.querySelectorAll<HTMLInputElement>('input[name="_csrf"]').forEach((input) => {
        input.value = 'forged-token';
      });
    });
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'This form has expired' }).waitFor();
    // Still logged in: the logout was not acted on.
    await page.goto(`${ctx.base}/dashboard`);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.close();
  });

  it('logs out, and the back button shows no console page', async () => {
    const page = await loggedIn(ctx.browser, ctx.base, VIEWPORTS[0], 'ops@example.test');
    await openMenu(page);
    await page.getByRole('button', { name: 'Log out' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('You have logged out.');
    expect((await page.context().cookies()).some((c) => c.name === 'qg_session')).toBe(false);
    await page.goto(`${ctx.base}/dashboard/payments`);
    await page.getByLabel('Password').waitFor();
    await page.close();
  });
});
