import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowserApp } from '../helpers/browser.js';
import { loggedIn, SHOTS, VIEWPORTS } from '../helpers/console-browser.js';
import { addMerchantUser } from '../helpers/console.js';
import { vectors } from '../helpers/context.js';
import { CQRIS } from '../helpers/api.js';
import { createMerchant } from '../../src/services/merchants/create-merchant.js';

// The self-service merchant's first hour on a public gateway (issue 26, items 14 to 17), in a real
// browser at both sizes.
describe('a newcomer in the merchant portal', () => {
  const ctx = useBrowserApp({ SIGNUP: 'open', SMTP_URL: 'smtp://127.0.0.1:9', MAIL_FROM: 'gateway@example.com' });

  const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

  for (const [index, viewport] of VIEWPORTS.entries()) {
    it(`a merchant not yet approved shows its live keys and itself as waiting for approval, never active (${viewport.name})`, async () => {
      // As a self-service user's merchant is made with LIVE_KEYS=approval (the default).
      const merchant = await createMerchant(ctx.t.deps, { name: `Waiting ${viewport.name}`, qris: vectors.vectors[index + 1]!.static, liveApproved: false });
      const email = `waiting-${viewport.name}@shop.test`;
      await addMerchantUser(ctx.t.deps, [merchant.id], email);
      const page = await loggedIn(ctx.browser, ctx.base, viewport, email);

      await page.goto(`${ctx.base}/dashboard/keys`);
      const keys: Record<string, string> = {};
      for (const mode of ['test', 'live']) {
        await page.getByLabel('Mode').selectOption(mode);
        await page.getByRole('button', { name: 'Create key' }).click();
        keys[mode] = (await page.locator('#new-key').textContent())!.trim();
      }
      await page.goto(`${ctx.base}/dashboard/keys`);
      const liveRow = page.getByRole('row', { name: new RegExp(keys.live!.slice(0, 12)) });
      const testRow = page.getByRole('row', { name: new RegExp(keys.test!.slice(0, 12)) });
      await expect.poll(() => liveRow.textContent()).toContain('waiting for approval');
      expect(await liveRow.textContent()).not.toContain('active');
      expect(await testRow.textContent()).toContain('active');
      expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(SHOTS, `portal-keys-waiting-${viewport.name}.png`), fullPage: true });
      // What the page says is what the API does.
      const live = await fetch(`${ctx.base}${CQRIS}?amount=10000`, { headers: { 'x-api-key': keys.live! } });
      expect(live.status).toBe(403);
      expect(((await live.json()) as { error: { code: string } }).error.code).toBe('live_not_approved');

      // The merchant's state, in its list and on its page.
      await page.getByRole('link', { name: 'Merchants' }).first().click();
      const row = page.getByRole('row', { name: new RegExp(`Waiting ${viewport.name}`) });
      expect(await row.textContent()).toContain('waiting for approval');
      expect(await row.textContent()).not.toContain('active');
      await row.getByRole('link', { name: `Waiting ${viewport.name}` }).click();
      await page.getByRole('heading', { name: `Waiting ${viewport.name}` }).waitFor();
      expect(await page.getByText("Its live keys wait for an operator's approval; its test keys work meanwhile.").isVisible()).toBe(true);

      // In Bahasa Indonesia too.
      const id = await ctx.browser.newPage({ viewport, locale: 'id-ID' });
      await id.context().addCookies(await page.context().cookies());
      await id.goto(`${ctx.base}/dashboard/keys`);
      expect(await id.getByRole('row', { name: new RegExp(keys.live!.slice(0, 12)) }).textContent()).toContain('menunggu persetujuan');
      await id.close();
      await page.close();
    });
  }
});
