// Issue 27, section 3, in a real browser at a phone's and a desktop's size: a merchant's owner opens
// "Cashiers" from the navigation, invites a cashier by e-mail (no SMTP: the link is shown), the invited
// person accepts it and lands on the point of sale, and the owner disables the cashier. An owner of two
// merchants chooses which one. The Indonesian words are checked on the phone.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBrowserApp } from '../../helpers/browser.js';
import { addMerchantUser, PASSWORD } from '../../helpers/console.js';
import { loggedIn, openSection, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { seedMerchant } from '../../helpers/context.js';

describe('inviting a cashier from the console in a real browser', () => {
  const ctx = useBrowserApp({ CONSOLE: 'true', SIGNUP: 'invite' });
  let second: { id: string; name: string };

  beforeAll(async () => {
    const other = await seedMerchant(ctx.t.deps, 1, 'Warung Kedua');
    second = { id: other.merchant.id, name: other.merchant.name };
    await addMerchantUser(ctx.t.deps, [ctx.t.merchant.id], 'owner-phone@shop.test');
    await addMerchantUser(ctx.t.deps, [ctx.t.merchant.id, second.id], 'owner-desktop@shop.test');
  });

  const fitsTheScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  for (const size of VIEWPORTS) {
    it(`an owner invites a cashier who accepts and sells; the owner disables it (${size.name})`, async () => {
      const owner = await loggedIn(ctx.browser, ctx.base, size, `owner-${size.name}@shop.test`);
      await openSection(owner, 'Cashiers');
      await owner.getByRole('heading', { name: 'Cashiers', level: 1 }).waitFor();
      await owner.getByRole('heading', { name: 'Invite a cashier' }).waitFor();
      const email = `kasir-${size.name}@shop.test`;
      await owner.getByLabel('Email').fill(email);
      // An owner of two merchants chooses the one the cashier sells for; of one, it is named.
      if (size.name === 'desktop')
        await owner.getByLabel('Merchant', { exact: true }).selectOption({ label: second.name });
      else expect(await owner.getByText(`A cashier of ${ctx.t.merchant.name}.`).isVisible()).toBe(true);
      await owner.getByRole('button', { name: 'Invite cashier' }).click();
      const notice = owner.getByRole('status').filter({ hasText: 'Cashier invitation made' });
      await notice.waitFor();
      expect(await notice.textContent()).toContain(`Cashier invitation made for ${email}.`);
      const link = (await owner.locator('#invite-link').textContent())!.trim();
      expect(link).toMatch(/\/dashboard\/invite\?token=/);
      expect(await fitsTheScreen(owner)).toBe(true);
      await owner.screenshot({ path: join(SHOTS, `console-cashier-invite-${size.name}.png`), fullPage: true });

      // The invited person opens the link, chooses a password and is at the point of sale.
      const invited = await ctx.browser.newPage({ viewport: size });
      await invited.goto(`${ctx.base}${new URL(link).pathname}${new URL(link).search}`);
      await invited.getByText(`Choose a password for ${email}.`).waitFor();
      await invited.getByLabel('New password').fill(PASSWORD);
      await invited.getByRole('button', { name: 'Accept and log in' }).click();
      await invited.waitForURL(`${ctx.base}/dashboard/pos`);
      await invited.getByRole('button', { name: 'Charge', exact: true }).waitFor();
      const merchant = size.name === 'desktop' ? second.name : ctx.t.merchant.name;
      expect(await invited.getByText(merchant, { exact: true }).first().isVisible()).toBe(true);

      // The owner sees its cashier and disables it (after confirming); the cashier's session ends.
      await owner.goto(`${ctx.base}/dashboard/users`);
      const row = owner.getByRole('row').filter({ hasText: email });
      expect(await row.getByText('cashier', { exact: true }).isVisible()).toBe(true);
      owner.once('dialog', (dialog) => void dialog.accept());
      await row.getByRole('button', { name: `Disable ${email}` }).click();
      await owner.getByRole('status').filter({ hasText: 'Done.' }).waitFor();
      expect(
        await owner.getByRole('row').filter({ hasText: email }).getByText('disabled', { exact: true }).isVisible(),
      ).toBe(true);
      await invited.goto(`${ctx.base}/dashboard/pos`);
      await invited.getByRole('button', { name: 'Log in' }).waitFor();

      if (size.name === 'phone') {
        await owner.goto(`${ctx.base}/dashboard/lang/id?back=/dashboard/users`);
        await owner.getByRole('heading', { name: 'Kasir', level: 1 }).waitFor();
        expect(await owner.getByRole('button', { name: 'Undang kasir' }).isVisible()).toBe(true);
        expect(await owner.getByText(`Kasir untuk ${ctx.t.merchant.name}.`).isVisible()).toBe(true);
        expect(await fitsTheScreen(owner)).toBe(true);
      }
      await invited.close();
      await owner.close();
    }, 120_000);
  }
});
