import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowserApp } from '../helpers/browser.js';
import { SHOTS, VIEWPORTS } from '../helpers/console-browser.js';
import { amountsFrom, CANCEL, CQRIS } from '../helpers/api.js';
import { formatRupiah } from '../../src/domain/money.js';
import { formatTime } from '../../src/presentation/format.js';
import { getCheckout } from '../../src/services/transactions/get-checkout.js';
import { recordPayment } from '../../src/services/payments/record-payment.js';

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

  const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

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
        await expect.poll(() => page.getByRole('heading', { name: 'Bukti pembayaran / Proof of payment' }).isVisible()).toBe(true);
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
      expect(await plain.getByRole('region', { name: 'Bukti pembayaran / Proof of payment' }).textContent()).toContain(paidAt);
      await noScript.close();
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
    const res = await fetch(`${ctx.base}${CANCEL}?trxid=${cancelled.trxid}`, { method: 'POST', headers: { 'x-api-key': ctx.t.liveKey } });
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
