// Issue 37, sections 1, 4 and 5, in a real browser at phone and desktop sizes: the demo merchant's counter
// says it sells in the sandbox and pays a sale from its own screen ("Bayar (simulasi)"), whose paid screen
// opens the sale's receipt ("Struk"); and a QR screen
// whose server goes away says so ("Koneksi ke server terputus"), then says it is back and re-checks the
// sale, which was paid meanwhile. The browser reaches the gateway through a proxy that is closed and
// started again on its port: to the page, the server went away and came back.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import { createMerchant } from '../../../src/services/merchants/create-merchant.js';
import { demoStaticQris } from '../../../src/domain/demo-qris.js';
import { addUser } from '../../../src/services/users/add-user.js';
import { useBrowserApp } from '../../helpers/browser.js';
import { PASSWORD, TEST_ACTOR } from '../../helpers/console.js';
import { SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { startForwardingProxy } from '../../helpers/forwarding-proxy.js';
import { databaseOutage } from '../../helpers/session-outage.js';

describe('the counter in the sandbox, and when the server is unreachable', () => {
  const ctx = useBrowserApp({ CONSOLE: 'true' });
  let demoId = '';

  beforeAll(async () => {
    demoId = (
      await createMerchant(ctx.t.deps, {
        name: 'Demo Sandbox Merchant',
        qris: demoStaticQris(),
        allowDuplicateNmid: true,
      })
    ).id;
    await addUser(
      ctx.t.deps,
      { email: 'kasir-demo@example.test', password: PASSWORD, role: 'cashier', merchantIds: [demoId] },
      TEST_ACTOR,
    );
  });

  async function cashier(base: string, viewport: { width: number; height: number }): Promise<Page> {
    const page = await ctx.browser.newPage({ viewport });
    await page.goto(`${base}/dashboard/lang/id?back=/dashboard`);
    await page.locator('input[name="email"]').fill('kasir-demo@example.test');
    await page.locator('input[name="password"]').fill(PASSWORD);
    await page.locator('form[action="/dashboard/login"] button[type="submit"]').click();
    await page.waitForURL(`${base}/dashboard/pos`);
    return page;
  }

  async function charge(page: Page, digits: string[]): Promise<string> {
    for (const key of digits) await page.getByRole('button', { name: key, exact: true }).click();
    await page.getByRole('button', { name: 'Tagih', exact: true }).click();
    await page.locator('#pos-qr-image').waitFor();
    await page.waitForURL(/\/dashboard\/pos\/trx_/);
    return /trx_\w+$/.exec(page.url())![0];
  }

  for (const viewport of VIEWPORTS) {
    it(`the demo merchant's counter shows Sandbox, says why, and pays a sale with "Bayar (simulasi)" (${viewport.name})`, async () => {
      const page = await cashier(ctx.base, viewport);
      const why = page.getByText('Ini merchant demo', { exact: false });
      expect(await why.isVisible()).toBe(true);
      expect(await page.locator('.pos-mode .badge').textContent()).toBe('Sandbox');
      await page.screenshot({ path: join(SHOTS, `pos-sandbox-keypad-${viewport.name}.png`) });

      const trxid = await charge(page, ['1', '8', '000']);
      const tx = await ctx.t.deps.db
        .selectFrom('transactions')
        .selectAll()
        .where('id', '=', trxid)
        .executeTakeFirstOrThrow();
      expect(tx.mode).toBe('test');
      expect(await page.locator('#pos-qr .badge').textContent()).toBe('Sandbox');
      const pay = page.getByRole('button', { name: 'Bayar (simulasi)', exact: true });
      expect(await pay.isVisible()).toBe(true);
      await page.screenshot({ path: join(SHOTS, `pos-sandbox-qr-${viewport.name}.png`) });
      await pay.click();
      await page.getByRole('heading', { name: 'Diterima', exact: true }).waitFor({ timeout: 20_000 });
      const paid = await ctx.t.deps.db
        .selectFrom('transactions')
        .select('status')
        .where('id', '=', trxid)
        .executeTakeFirstOrThrow();
      expect(paid.status).toBe('paid');
      expect(await page.locator('#pos-paid .badge').textContent()).toBe('Sandbox');
      // The paid screen offers the sale's receipt at once (issue 37, section 4): "Struk" opens it.
      const struk = page.locator('#pos-paid').getByRole('button', { name: 'Struk', exact: true });
      expect(await struk.isVisible()).toBe(true);
      await page.screenshot({ path: join(SHOTS, `pos-sandbox-paid-${viewport.name}.png`) });
      const [receipt] = await Promise.all([page.context().waitForEvent('page'), struk.click()]);
      await receipt.waitForURL(/\/receipt\/[^/?]+\?width=58&lang=id$/);
      await receipt.getByText('LUNAS', { exact: true }).waitFor();
      expect(await receipt.locator('.receipt').textContent()).toContain(trxid);
      const link = await ctx.t.deps.db
        .selectFrom('receipt_links')
        .select('token')
        .where('transaction_id', '=', trxid)
        .executeTakeFirstOrThrow();
      expect(receipt.url()).toContain(`/receipt/${link.token}?`);
      await receipt.close();
      await page.close();
    }, 120_000);
  }

  for (const viewport of VIEWPORTS) {
    it(`a QR screen says when it lost the server and when it is back, then shows the sale paid meanwhile (${viewport.name})`, async () => {
      let proxy = await startForwardingProxy(ctx.base);
      const port = Number(new URL(proxy.url).port);
      try {
        const page = await cashier(proxy.url, viewport);
        const trxid = await charge(page, ['2', '1', '000']);
        const banner = page.getByRole('status').filter({ hasText: 'Koneksi ke server terputus' });
        expect(await banner.count()).toBe(0);

        await proxy.close();
        // Generous bounds: the page's checks run every 2 to 5 s, and a busy machine may be slow to run them.
        await banner.waitFor({ timeout: 30_000 });
        await page.screenshot({ path: join(SHOTS, `pos-connection-lost-${viewport.name}.png`) });
        // Paid while the counter could not hear of it.
        await simulatePayment(ctx.t.deps, { merchantId: demoId, mode: 'test' }, trxid);
        await page.waitForTimeout(500);
        expect(await page.getByRole('heading', { name: 'Diterima', exact: true }).isVisible()).toBe(false);

        proxy = await startForwardingProxy(ctx.base, port);
        await page.getByText('Tersambung kembali.', { exact: true }).waitFor({ timeout: 30_000 });
        expect(await banner.count()).toBe(0);
        await page.getByRole('heading', { name: 'Diterima', exact: true }).waitFor({ timeout: 20_000 });
        await page.screenshot({ path: join(SHOTS, `pos-connection-back-${viewport.name}.png`) });
        await page.close();
      } finally {
        await proxy.close();
      }
    }, 120_000);
  }

  // The server answers but its database does not (issue 37, section 5, "the POS with the database stopped"):
  // the sale's status checks get 503, and the screen says the connection is lost rather than waiting on.
  it('a QR screen says when the server cannot reach its database and when it is back, then shows the sale paid (phone)', async () => {
    const outage = databaseOutage(ctx.t.deps.db);
    const page = await cashier(ctx.base, VIEWPORTS[0]);
    const trxid = await charge(page, ['2', '2', '000']);
    const banner = page.getByRole('status').filter({ hasText: 'Koneksi ke server terputus' });
    outage.on = true;
    await banner.waitFor({ timeout: 30_000 });
    expect(await page.getByRole('heading', { name: 'Diterima', exact: true }).isVisible()).toBe(false);
    await page.screenshot({ path: join(SHOTS, 'pos-database-down-phone.png') });
    outage.on = false;
    await simulatePayment(ctx.t.deps, { merchantId: demoId, mode: 'test' }, trxid);
    await page.getByRole('heading', { name: 'Diterima', exact: true }).waitFor({ timeout: 30_000 });
    expect(await banner.count()).toBe(0);
    await page.close();
  }, 120_000);
});
