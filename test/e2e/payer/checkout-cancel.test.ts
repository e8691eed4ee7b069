import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useBrowserApp } from '../../helpers/browser.js';

// A payer looking at the checkout page when the merchant cancels the order through the API.
describe('checkout page of a cancelled transaction', () => {
  const ctx = useBrowserApp();

  async function create(amount: number): Promise<{ trxid: string }> {
    const res = await fetch(`${ctx.base}/api/payment-gateway/cqris?amount=${amount}`, {
      headers: { 'x-api-key': ctx.t.liveKey },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { trxid: string } }).data;
  }

  for (const [name, viewport] of [
    ['phone', { width: 390, height: 844 }],
    ['desktop', { width: 1280, height: 800 }],
  ] as const) {
    it(`turns to the cancelled screen live when the merchant cancels (${name})`, async () => {
      const tx = await create(name === 'phone' ? 41_000 : 42_000);
      const page = await ctx.browser.newPage({ viewport });
      await page.goto(`${ctx.base}/checkout/${tx.trxid}`);
      await expect.poll(() => page.getByText('Menunggu pembayaran').isVisible()).toBe(true);

      const res = await fetch(`${ctx.base}/api/payment-gateway/cancel?trxid=${tx.trxid}`, {
        method: 'POST',
        headers: { 'x-api-key': ctx.t.liveKey },
      });
      expect(res.status).toBe(200);

      const started = Date.now();
      await page.getByText('Transaksi dibatalkan').waitFor({ timeout: 3000 });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(await page.locator('main').getAttribute('data-status')).toBe('cancelled');
      // A code that should no longer be paid is not shown, nor the amount to pay or the countdown.
      expect(await page.locator('#qr').isVisible()).toBe(false);
      expect(await page.getByText('Total yang harus dibayar').isVisible()).toBe(false);
      expect(await page.locator('#countdown').textContent()).toBe('');
      await page.screenshot({ path: join(tmpdir(), `qg-checkout-cancelled-${name}.png`), fullPage: true });

      // Opened afresh, the page says the same without a stream.
      await page.reload();
      expect(await page.locator('main').getAttribute('data-status')).toBe('cancelled');
      expect(await page.locator('#qr').isVisible()).toBe(false);
      await expect.poll(() => page.getByText('Transaksi dibatalkan').isVisible()).toBe(true);
      await page.close();
    });
  }
});
