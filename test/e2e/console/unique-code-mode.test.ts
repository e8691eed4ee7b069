// Issue 37, section 3, in a real browser: an owner chooses on the merchant's page that the unique code is
// subtracted, and the checkout page then says the code is taken off ("dikurangi", a discount) where it
// said before that it is added ("ditambahkan"), at phone and desktop sizes.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBrowserApp } from '../../helpers/browser.js';
import { addMerchantUser } from '../../helpers/console.js';
import { loggedIn, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';

describe('unique code added or subtracted, in a real browser', () => {
  const ctx = useBrowserApp();
  beforeAll(async () => {
    await addMerchantUser(ctx.t.deps, [ctx.t.merchant.id], 'owner@example.test');
  });

  async function create(amount: number) {
    const res = await fetch(`${ctx.base}/api/payment-gateway/cqris?amount=${amount}`, {
      headers: { 'x-api-key': ctx.t.testKey },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { trxid: string; total_amount: number; unique_code: number } }).data;
  }

  for (const viewport of VIEWPORTS) {
    it(`the owner switches to a subtracted code and the checkout page says it is a discount (${viewport.name})`, async () => {
      const page = await loggedIn(ctx.browser, ctx.base, viewport, 'owner@example.test');
      await page.goto(`${ctx.base}/dashboard/merchants/${ctx.t.merchant.id}`);
      const section = page.getByRole('region', { name: 'Unique code' });
      await section.getByLabel('Added to the price').check();
      await section.getByRole('button', { name: 'Save the unique code' }).click();
      await page.getByText('New sales add the unique code to the price.').waitFor();

      const added = await create(7500);
      expect(added.unique_code).toBeGreaterThan(0);
      expect(added.unique_code).toBeLessThanOrEqual(99);
      await page.goto(`${ctx.base}/checkout/${added.trxid}`);
      const breakdown = page.locator('p.breakdown');
      expect(await breakdown.innerText()).toMatch(
        new RegExp(`^Rp7\\.500 ditambahkan kode unik ${added.unique_code}\\s+\\(plus unique code\\)$`),
      );
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await page.screenshot({ path: join(SHOTS, `checkout-code-added-${viewport.name}.png`), fullPage: true });

      await page.goto(`${ctx.base}/dashboard/merchants/${ctx.t.merchant.id}`);
      await page.getByRole('region', { name: 'Unique code' }).getByLabel('Subtracted from the price').check();
      await page.getByRole('button', { name: 'Save the unique code' }).click();
      await page.getByText('New sales subtract the unique code from the price.').waitFor();
      expect(
        await page.getByRole('region', { name: 'Unique code' }).getByLabel('Subtracted from the price').isChecked(),
      ).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await page.screenshot({ path: join(SHOTS, `unique-code-${viewport.name}.png`), fullPage: true });

      const subtracted = await create(7500);
      expect(subtracted.unique_code).toBeLessThan(0);
      expect(subtracted.total_amount).toBeLessThan(7500);
      await page.goto(`${ctx.base}/checkout/${subtracted.trxid}`);
      expect(await page.locator('#total').innerText()).toBe(`Rp${subtracted.total_amount.toLocaleString('id-ID')}`);
      expect(await breakdown.innerText()).toMatch(
        new RegExp(`^Rp7\\.500 dikurangi kode unik ${-subtracted.unique_code}\\s+\\(minus unique code discount\\)$`),
      );
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await page.screenshot({ path: join(SHOTS, `checkout-code-subtracted-${viewport.name}.png`), fullPage: true });
      await page.close();
    });
  }
});
