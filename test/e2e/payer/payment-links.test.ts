import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowserApp } from '../../helpers/browser.js';
import { addOperator } from '../../helpers/console.js';
import { loggedIn, openSection, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';

describe('payment links in a real browser', () => {
  const ctx = useBrowserApp();

  beforeAll(async () => {
    await addOperator(ctx.t.deps, 'ops@example.test');
  });

  /** On a checkout page: the total is the amount plus the unique code, shown as Rp25.123. */
  async function expectCheckoutOf(page: Page, amount: number) {
    await page.waitForURL(/\/checkout\/trx_[0-9A-Za-z]+$/);
    const code = Number(await page.textContent('#unique-code'));
    expect(code).toBeGreaterThanOrEqual(1);
    // The largest code scales with the price: max(99, 1% of it).
    expect(code).toBeLessThanOrEqual(Math.max(99, Math.floor(amount / 100)));
    expect(await page.textContent('#total')).toBe(`Rp${(amount + code).toLocaleString('id-ID')}`);
    expect(await page.textContent('.breakdown')).toContain(
      `Rp${amount.toLocaleString('id-ID')} ditambahkan kode unik ${code}`,
    );
  }

  const noSidewaysScroll = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

  for (const viewport of VIEWPORTS) {
    it(`an operator sets a handle, and the link opens checkout pages of the right amount (${viewport.name})`, async () => {
      const handle = `warung-${viewport.name}`;
      const page = await loggedIn(ctx.browser, ctx.base, viewport, 'ops@example.test');
      await openSection(page, 'Links');
      await page.getByRole('heading', { name: 'Payment links' }).waitFor();
      await page
        .getByRole('row', { name: /Test Merchant/ })
        .getByRole('link')
        .click();
      await page.getByLabel('Handle').fill(handle.toUpperCase());
      await page.getByRole('button', { name: 'Save' }).click();
      await expect(page.getByRole('status').textContent()).resolves.toBe('The payment link is saved.');
      await expect(page.getByLabel('Handle').inputValue()).resolves.toBe(handle);
      const qr = page.getByRole('img', { name: `QR code of http://127.0.0.1/pay/${handle}` });
      await qr.waitFor();
      expect(await qr.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(200);
      // The desktop one is docs/counter.md's picture.
      await page.screenshot({
        path: join(SHOTS, viewport.name === 'desktop' ? 'payment-link.png' : `payment-link-${viewport.name}.png`),
        fullPage: true,
      });
      expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(0);

      // The print view holds the QR, the merchant's name and the link; printing hides the console around it.
      await page.getByRole('link', { name: 'Print' }).click();
      await page.locator('.print-sheet img').waitFor();
      await page.emulateMedia({ media: 'print' });
      expect(await page.locator('nav.main').isVisible()).toBe(false);
      expect(await page.getByRole('button', { name: 'Print' }).isVisible()).toBe(false);
      expect(await page.locator('.print-sheet').textContent()).toContain(`http://127.0.0.1/pay/${handle}`);
      // A URL QR, which a banking app's scanner refuses: the sheet says to use the camera, in both languages.
      for (const line of ["Scan with your phone's camera", 'Pindai dengan kamera ponsel Anda']) {
        expect(await page.getByText(line, { exact: true }).isVisible(), line).toBe(true);
      }
      expect(
        await page.getByText('It opens the payment page: type the amount, then pay with any QRIS app.').isVisible(),
      ).toBe(true);
      expect(await page.locator('.print-sheet').textContent()).not.toContain('Pindai untuk membayar');
      await page.screenshot({ path: join(SHOTS, `payment-link-print-${viewport.name}.png`) });
      await page.emulateMedia({ media: 'screen' });

      // A link with the amount in it goes straight to the checkout page.
      const payer = await ctx.browser.newPage({ viewport, locale: 'id-ID' });
      await payer.goto(`${ctx.base}/pay/${handle}/25000`);
      await expectCheckoutOf(payer, 25_000);

      // The plain link asks for the amount.
      await payer.goto(`${ctx.base}/pay/${handle}`);
      await payer.getByRole('heading', { name: ctx.t.merchant.merchant_name }).waitFor();
      expect(await payer.getAttribute('html', 'lang')).toBe('id');
      await payer.close();
      const english = await ctx.browser.newPage({ viewport, locale: 'en-US' });
      await english.goto(`${ctx.base}/pay/${handle}`);
      await english.getByLabel('Amount').fill('abc');
      await english.getByRole('button', { name: 'Pay' }).click();
      await expect(english.getByRole('alert').textContent()).resolves.toBe(
        'The amount must be whole rupiah in digits only, e.g. 25000.',
      );
      await english.getByLabel('Amount').fill('40.000');
      await english.getByLabel('Email').fill('payer@example.com');
      expect(await noSidewaysScroll(english)).toBeLessThanOrEqual(0);
      await english.screenshot({ path: join(SHOTS, `payment-link-form-${viewport.name}.png`), fullPage: true });
      await english.getByRole('button', { name: 'Pay' }).click();
      await expectCheckoutOf(english, 40_000);
      await english.close();
      await page.close();
    });
  }
});
