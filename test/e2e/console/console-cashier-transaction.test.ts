// Issue 37, section 4, in a real browser at a phone's and a desktop's size: a cashier opening a
// transaction's page sees no action its routes refuse (no "Batalkan", no "Konfirmasi pembayaran", no refund
// form, no webhook resend), while the merchant's owner, on the same transactions, still sees them all. The
// page derives its buttons from the routes' own rule (domain/viewer.ts, mayOpen); the 404 the cashier gets
// from the cancel route is checked too, so page and route are seen to agree.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import { addUser } from '../../../src/services/users/add-user.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { addWebhookEndpoint } from '../../../src/services/webhooks/add-webhook-endpoint.js';
import { useBrowserApp } from '../../helpers/browser.js';
import { addMerchantUser, PASSWORD, TEST_ACTOR } from '../../helpers/console.js';
import { loggedIn, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { createInput } from '../../helpers/context.js';

describe('a transaction page shows a cashier only what a cashier can do', () => {
  const ctx = useBrowserApp({ CONSOLE: 'true' });

  beforeAll(async () => {
    await addMerchantUser(ctx.t.deps, [ctx.t.merchant.id], 'owner@shop.test');
    await addUser(
      ctx.t.deps,
      { email: 'kasir@shop.test', password: PASSWORD, role: 'cashier', merchantIds: [ctx.t.merchant.id] },
      TEST_ACTOR,
    );
    // An endpoint, so a paid event's timeline entry has deliveries and an owner a "Resend" button.
    await addWebhookEndpoint(ctx.t.deps, { merchantId: ctx.t.merchant.id, url: 'https://hooks.example.test/x' });
  });

  async function cashier(viewport: { width: number; height: number }): Promise<Page> {
    const page = await ctx.browser.newPage({ viewport });
    await page.goto(`${ctx.base}/dashboard/lang/id?back=/dashboard`);
    await page.locator('input[name="email"]').fill('kasir@shop.test');
    await page.locator('input[name="password"]').fill(PASSWORD);
    await page.locator('form[action="/dashboard/login"] button[type="submit"]').click();
    await page.waitForURL(`${ctx.base}/dashboard/pos`);
    return page;
  }

  async function transactions(amount: number): Promise<{ pending: string; paid: string }> {
    const { t } = ctx;
    const pending = (await createTransaction(t.deps, createInput(t.merchant.id, amount))).transaction.id;
    const paid = (await createTransaction(t.deps, createInput(t.merchant.id, amount + 1000))).transaction.id;
    await simulatePayment(t.deps, { merchantId: t.merchant.id, mode: 'test' }, paid);
    return { pending, paid };
  }

  for (const size of VIEWPORTS) {
    it(`a cashier sees no cancel, confirm, refund or resend; an owner does (${size.name})`, async () => {
      const { pending, paid } = await transactions(size.name === 'phone' ? 31_000 : 42_000);

      const kasir = await cashier(size);
      await kasir.goto(`${ctx.base}/dashboard/transactions/${pending}`);
      await kasir.getByRole('heading', { name: 'Transaksi', level: 1 }).waitFor();
      expect(await kasir.getByRole('button', { name: 'Batalkan' }).count()).toBe(0);
      expect(await kasir.getByRole('button', { name: 'Konfirmasi pembayaran' }).count()).toBe(0);
      expect(await kasir.locator('form[action$="/cancel"], form[action$="/confirm"]').count()).toBe(0);
      expect(await kasir.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await kasir.screenshot({ path: join(SHOTS, `console-cashier-pending-${size.name}.png`), fullPage: true });
      // The route refuses what the page no longer offers.
      const refused = await kasir.request.post(`${ctx.base}/dashboard/transactions/${pending}/cancel`, {
        form: { _csrf: 'x' },
        maxRedirects: 0,
      });
      expect(refused.status()).toBe(404);

      await kasir.goto(`${ctx.base}/dashboard/transactions/${paid}`);
      await kasir.getByRole('heading', { name: 'Transaksi', level: 1 }).waitFor();
      expect(
        await kasir
          .locator(
            'form[action$="/refund"], form[action$="/resend"], form[action$="/confirm"], form[action$="/cancel"]',
          )
          .count(),
      ).toBe(0);
      expect(await kasir.getByRole('button', { name: /Kembalikan dana|Catat pengembalian|Kirim ulang/ }).count()).toBe(
        0,
      );
      // What a cashier may do stays: making the receipt's link.
      expect(await kasir.locator('form[action$="/receipt"]').count()).toBe(1);
      await kasir.screenshot({ path: join(SHOTS, `console-cashier-paid-${size.name}.png`), fullPage: true });
      await kasir.close();

      const owner = await loggedIn(ctx.browser, ctx.base, size, 'owner@shop.test');
      await owner.goto(`${ctx.base}/dashboard/transactions/${pending}`);
      expect(await owner.getByRole('button', { name: 'Cancel', exact: true }).isVisible()).toBe(true);
      expect(await owner.locator('form[action$="/confirm"] button[type="submit"]').isVisible()).toBe(true);
      await owner.goto(`${ctx.base}/dashboard/transactions/${paid}`);
      expect(await owner.locator('form[action$="/refund"] button[type="submit"]').isVisible()).toBe(true);
      expect(await owner.locator('form[action$="/resend"]').count()).toBeGreaterThan(0);
      await owner.close();
    }, 120_000);
  }
});
