// Issue 37, section 6, in a real browser at phone and desktop sizes: a live transaction still waiting, of a
// merchant with no enabled live payment source, says on its page that no source will mark it paid, and its
// link leads to the sources page where one is added.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { useBrowserApp } from '../../helpers/browser.js';
import { addMerchantUser } from '../../helpers/console.js';
import { loggedIn, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { createInput } from '../../helpers/context.js';

describe('a live transaction that no source will mark paid', () => {
  const ctx = useBrowserApp({ CONSOLE: 'true', LIVE_KEYS: 'auto' });

  beforeAll(async () => {
    await addMerchantUser(ctx.t.deps, [ctx.t.merchant.id], 'owner@example.test');
  });

  for (const viewport of VIEWPORTS) {
    it(`its page says so, visibly, and links to the sources page (${viewport.name})`, async () => {
      const { transaction } = await createTransaction(
        ctx.t.deps,
        createInput(ctx.t.merchant.id, 31_000, { mode: 'live' }),
      );
      const page = await loggedIn(ctx.browser, ctx.base, viewport, 'owner@example.test');
      await page.goto(`${ctx.base}/dashboard/transactions/${transaction.id}`);
      const warning = page
        .getByRole('note')
        .filter({ hasText: 'No payment source will mark a live payment of Test Merchant paid' });
      expect(await warning.isVisible()).toBe(true);
      // Whole on a phone's width: not cut off by the page.
      const box = (await warning.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
      await page.screenshot({ path: join(SHOTS, `no-live-source-transaction-${viewport.name}.png`) });
      await warning.getByRole('link', { name: 'Add a payment source' }).click();
      await page.waitForURL(`${ctx.base}/dashboard/sources`);
      await page.getByRole('heading', { level: 1 }).waitFor();

      // The keys page says it too, beside the merchant's live key, and fits the screen.
      await page.goto(`${ctx.base}/dashboard/keys`);
      const onKeys = page
        .getByRole('note')
        .filter({ hasText: 'No payment source will mark a live payment of Test Merchant paid' });
      expect(await onKeys.isVisible()).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await page.screenshot({ path: join(SHOTS, `no-live-source-keys-${viewport.name}.png`), fullPage: true });
      await page.close();
    }, 120_000);
  }
});
