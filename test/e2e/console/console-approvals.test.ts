// issue 26, items 10 and 12 in a real browser at a phone's and a desktop's size: the operators' approval
// queue (who signed up, the NMID with its duplicate flag, Reject, Ask again), found by its labels and roles;
// and the login page of a gateway without SMTP, which sends a forgotten password to the operator.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowserApp } from '../../helpers/browser.js';
import { addMerchantUser, addOperator } from '../../helpers/console.js';
import { loggedIn, openMenu, openSection, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { staticQrisWithNmid } from '../../helpers/qris.js';
import { createApiKey } from '../../../src/services/merchants/create-api-key.js';
import { createMerchant } from '../../../src/services/merchants/create-merchant.js';
import { CQRIS } from '../../helpers/api.js';

/** Nothing sticks out sideways, and every button of the page's tables is on screen. */
async function fitsWidth(page: Page, width: number): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  for (const button of await page.locator('main table button').all()) {
    const box = (await button.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(width);
  }
}

for (const viewport of VIEWPORTS) {
  describe(`the approval queue (${viewport.name})`, () => {
    const ctx = useBrowserApp({ LIVE_KEYS: 'approval' });

    it('lists who signed up and the NMID, flags and links a duplicate NMID; Reject and Ask again move a merchant out and back', async () => {
      const deps = ctx.t.deps;
      await addOperator(deps);
      const code = staticQrisWithNmid('ID1029900000601', 'WARUNG KEMBAR');
      const kembar = await createMerchant(deps, { name: 'Warung Kembar', qris: code, liveApproved: false });
      await addMerchantUser(deps, [kembar.id], 'kembar@shop.test');
      const twin = await createMerchant(deps, { name: 'Kembar Dua', qris: code, allowDuplicateNmid: true });
      const sendiri = await createMerchant(deps, {
        name: 'Toko Sendiri',
        qris: staticQrisWithNmid('ID1029900000602'),
        liveApproved: false,
      });
      await addMerchantUser(deps, [sendiri.id], 'sendiri@shop.test');
      const live = (await createApiKey(deps, { merchantId: kembar.id, mode: 'live' })).key;
      const liveCode = async () =>
        (
          (await (await fetch(`${ctx.base}${CQRIS}?amount=10000`, { headers: { 'x-api-key': live } })).json()) as {
            error: { code: string };
          }
        ).error.code;

      const page = await loggedIn(ctx.browser, ctx.base, viewport, 'ops@example.test');
      await openSection(page, 'Approvals (2)');
      await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'Waiting for approval (2)' }).waitFor();
      const row = page.getByRole('row').filter({ hasText: 'Warung Kembar' });
      await expect(row.count()).resolves.toBe(1);
      for (const text of ['kembar@shop.test', 'ID1029900000601', 'duplicate NMID'])
        await expect(row.getByText(text).first().isVisible(), text).resolves.toBe(true);
      await expect(row.getByRole('link', { name: 'Kembar Dua' }).getAttribute('href')).resolves.toBe(
        `/dashboard/merchants/${twin.id}`,
      );
      const alone = page.getByRole('row').filter({ hasText: 'Toko Sendiri' });
      await expect(alone.getByText('sendiri@shop.test').isVisible()).resolves.toBe(true);
      await expect(alone.getByText('duplicate NMID').count()).resolves.toBe(0);
      await fitsWidth(page, viewport.width);
      await page.screenshot({ path: join(SHOTS, `approvals-${viewport.name}.png`), fullPage: true });

      await row.getByRole('button', { name: 'Reject Warung Kembar' }).click();
      await page.getByText('Rejected Warung Kembar: its live keys answer 403 live_rejected.').waitFor();
      await page.getByRole('heading', { name: 'Waiting for approval (1)' }).waitFor();
      await page.getByRole('heading', { name: 'Rejected (1)' }).waitFor();
      await openMenu(page);
      await expect(
        page
          .getByRole('navigation', { name: 'Console sections' })
          .getByRole('link', { name: 'Approvals (1)' })
          .isVisible(),
      ).resolves.toBe(true);
      expect(await liveCode()).toBe('live_rejected');
      await page.reload();
      await fitsWidth(page, viewport.width);
      await page.screenshot({ path: join(SHOTS, `approvals-rejected-${viewport.name}.png`), fullPage: true });

      await page.getByRole('button', { name: 'Ask again about Warung Kembar' }).click();
      await page.getByText('Warung Kembar is back in the queue, waiting for approval.').waitFor();
      await page.getByRole('heading', { name: 'Waiting for approval (2)' }).waitFor();
      await expect(page.getByRole('heading', { name: /^Rejected/ }).count()).resolves.toBe(0);
      expect(await liveCode()).toBe('live_not_approved');

      // The duplicate's link leads to the other merchant.
      await page
        .getByRole('row')
        .filter({ hasText: 'Warung Kembar' })
        .getByRole('link', { name: 'Kembar Dua' })
        .click();
      await page.getByRole('heading', { name: 'Kembar Dua', level: 1 }).waitFor();
      await page.close();
    });
  });
}

describe('the login page of a gateway without SMTP', () => {
  const ctx = useBrowserApp();

  for (const viewport of VIEWPORTS) {
    it(`offers no reset link but says to ask the operator, in both languages; the reset form answers the same (${viewport.name})`, async () => {
      const page = await ctx.browser.newPage({ viewport });
      await page.goto(`${ctx.base}/dashboard`);
      await page.getByRole('heading', { name: 'Log in' }).waitFor();
      await expect(page.getByRole('link', { name: /Forgot/ }).count()).resolves.toBe(0);
      await expect(
        page.getByText('Forgot your password? Ask your operator to set a new password').isVisible(),
      ).resolves.toBe(true);
      await expect(page.getByText('npm run -s cli -- user password you@example.com').isVisible()).resolves.toBe(true);
      await fitsWidth(page, viewport.width);
      await page.screenshot({ path: join(SHOTS, `login-no-smtp-${viewport.name}.png`), fullPage: true });

      await page.getByRole('link', { name: 'Indonesia', exact: true }).click();
      await page.getByRole('heading', { name: 'Masuk' }).waitFor();
      await expect(page.getByRole('link', { name: /Lupa/ }).count()).resolves.toBe(0);
      await expect(
        page.getByText('Lupa kata sandi? Minta operator Anda mengatur kata sandi baru').isVisible(),
      ).resolves.toBe(true);
      await fitsWidth(page, viewport.width);

      // The reset page, reached by an old link: the same words, and the way back to the login.
      await page.goto(`${ctx.base}/dashboard/reset`);
      await expect(page.getByText('Minta operator Anda mengatur kata sandi baru').isVisible()).resolves.toBe(true);
      await page.getByRole('link', { name: 'Kembali ke halaman masuk' }).click();
      await page.getByRole('heading', { name: 'Masuk' }).waitFor();
      await page.close();
    });
  }
});
