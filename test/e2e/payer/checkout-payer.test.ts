import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowserApp } from '../../helpers/browser.js';
import { SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { amountsFrom, CANCEL, CQRIS } from '../../helpers/api.js';
import { formatRupiah } from '../../../src/domain/money.js';
import { formatTime } from '../../../src/presentation/format.js';
import { getCheckout } from '../../../src/services/transactions/get-checkout.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';

// What the payer meets on the checkout page beyond paying (issue 26, items 18 and 19): the proof a paid
// page shows, the titles of closed pages, and saving the QR to pay from the same phone.
describe('the payer on the checkout page', () => {
  const ctx = useBrowserApp();
  const nextAmount = amountsFrom(60_000);

  async function create(key: string): Promise<{ trxid: string; total_amount: number }> {
    const res = await fetch(`${ctx.base}${CQRIS}?amount=${nextAmount()}`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { trxid: string; total_amount: number } }).data;
  }

  const noSidewaysScroll = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

  for (const viewport of VIEWPORTS) {
    it(`a paid page shows the proof a payer keeps: amount, merchant, time (WIB) and transaction ID, titled paid (${viewport.name})`, async () => {
      const tx = await create(ctx.t.testKey);
      const page = await ctx.browser.newPage({ viewport });
      await page.goto(`${ctx.base}/checkout/${tx.trxid}`);
      const total = formatRupiah(tx.total_amount);
      const merchant = ctx.t.merchant.merchant_name;
      expect(await page.title()).toBe(`Bayar ${total} – ${merchant}`);
      await expect.poll(() => page.getByText('Menunggu pembayaran').isVisible()).toBe(true);

      // Paid while the page is open: it turns into the proof without a reload.
      await page.getByRole('button', { name: 'Bayar (simulasi) / Pay (simulated)' }).click();
      const proof = page.getByRole('region', { name: 'Bukti pembayaran / Proof of payment' });
      await proof.waitFor();
      const view = await getCheckout(ctx.t.deps, tx.trxid);
      expect(view.status).toBe('paid');
      const paidAt = formatTime(Date.parse(view.paid_at!), 'id');
      expect(paidAt).toMatch(/WIB$/);
      const expectProof = async () => {
        await expect.poll(() => page.title()).toBe(`Dibayar ${total} – ${merchant}`);
        await expect
          .poll(() => page.getByRole('heading', { name: 'Bukti pembayaran / Proof of payment' }).isVisible())
          .toBe(true);
        for (const label of ['Jumlah dibayar', 'Dibayar kepada', 'Waktu pembayaran', 'ID transaksi']) {
          expect(await proof.getByText(label).isVisible(), label).toBe(true);
        }
        const text = await proof.textContent();
        expect(text).toContain(total);
        expect(text).toContain(merchant);
        expect(text).toContain(paidAt);
        expect(text).toContain(tx.trxid);
        // A sandbox payment's picture proves nothing, and says so inside the box.
        expect(text).toContain('Mode sandbox: tidak ada uang sungguhan.');
        expect(await page.getByText('Pembayaran diterima. Terima kasih!').isVisible()).toBe(true);
        // The code to pay is gone.
        expect(await page.getByRole('img', { name: /Kode QRIS untuk/ }).isVisible()).toBe(false);
        expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(0);
      };
      await expectProof();
      await page.screenshot({ path: join(SHOTS, `checkout-paid-${viewport.name}.png`), fullPage: true });

      // Opened afresh, and without script, the server renders the same.
      await page.reload();
      await expectProof();
      const noScript = await ctx.browser.newContext({ viewport, javaScriptEnabled: false });
      const plain = await noScript.newPage();
      await plain.goto(`${ctx.base}/checkout/${tx.trxid}`);
      expect(await plain.title()).toBe(`Dibayar ${total} – ${merchant}`);
      expect(await plain.getByRole('region', { name: 'Bukti pembayaran / Proof of payment' }).textContent()).toContain(
        paidAt,
      );
      await noScript.close();
      await page.close();
    });
  }

  for (const viewport of VIEWPORTS) {
    it(`a payer on the paying phone saves the QR, named by merchant and amount, to pay from the gallery (${viewport.name})`, async () => {
      const tx = await create(ctx.t.liveKey);
      const page = await ctx.browser.newPage({ viewport, acceptDownloads: true });
      await page.goto(`${ctx.base}/checkout/${tx.trxid}`);
      const save = page.getByRole('link', { name: 'Simpan QR / Save QR' });
      expect(await save.isVisible()).toBe(true);
      const name = `qris-${ctx.t.merchant.merchant_name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${tx.total_amount}.png`;
      expect(await save.getAttribute('download')).toBe(name);
      expect(await page.getByText('Membayar dari ponsel ini? Simpan QR').isVisible()).toBe(true);
      expect(await page.getByText('Paying from this phone? Save the QR').isVisible()).toBe(true);

      // The link answers the code's PNG, and the browser saves it under that name.
      const href = await save.evaluate((a) => (a as HTMLAnchorElement).href);
      const res = await fetch(href);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      const png = Buffer.from(await res.arrayBuffer());
      expect(png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
      const [download] = await Promise.all([page.waitForEvent('download'), save.click()]);
      expect(download.suggestedFilename()).toBe(name);
      expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(SHOTS, `checkout-pending-${viewport.name}.png`), fullPage: true });
      await page.close();
    });
  }

  it('a live payment names no sandbox in its proof; cancelled and expired pages are titled by their state', async () => {
    const merchant = ctx.t.merchant.merchant_name;
    const paid = await create(ctx.t.liveKey);
    // A live transaction is paid as a payment source reports it.
    await recordPayment(ctx.t.deps, {
      merchantId: ctx.t.merchant.id,
      mode: 'live',
      source: 'e2e-test',
      sourcePaymentId: `e2e-${paid.trxid}`,
      amount: paid.total_amount,
      paidAt: ctx.t.clock.now(),
    });
    const page = await ctx.browser.newPage({ viewport: VIEWPORTS[0] });
    await page.goto(`${ctx.base}/checkout/${paid.trxid}`);
    const proof = page.getByRole('region', { name: 'Bukti pembayaran / Proof of payment' });
    expect(await proof.textContent()).toContain(formatRupiah(paid.total_amount));
    expect(await proof.textContent()).not.toContain('sandbox');

    const cancelled = await create(ctx.t.liveKey);
    const res = await fetch(`${ctx.base}${CANCEL}?trxid=${cancelled.trxid}`, {
      method: 'POST',
      headers: { 'x-api-key': ctx.t.liveKey },
    });
    expect(res.status).toBe(200);
    await page.goto(`${ctx.base}/checkout/${cancelled.trxid}`);
    expect(await page.title()).toBe(`Dibatalkan – ${merchant}`);
    expect(await page.getByText('Transaksi dibatalkan.').isVisible()).toBe(true);
    expect(await page.getByRole('region', { name: /Bukti pembayaran/ }).count()).toBe(0);

    const expired = await create(ctx.t.testKey);
    ctx.t.clock.advance(16 * 60 * 1000);
    await page.goto(`${ctx.base}/checkout/${expired.trxid}`);
    expect(await page.title()).toBe(`Kedaluwarsa – ${merchant}`);
    expect(await page.getByText('Kode QRIS sudah kedaluwarsa.').isVisible()).toBe(true);
    await page.close();
  });
});
