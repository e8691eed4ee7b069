import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowserApp } from '../../helpers/browser.js';
import { runCommand } from '../../helpers/processes.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';

describe('checkout page in a real browser', () => {
  const ctx = useBrowserApp();

  async function create(key: string, amount: number) {
    const res = await fetch(`${ctx.base}/api/payment-gateway/cqris?amount=${amount}`, {
      headers: { 'x-api-key': key },
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: unknown }).data as {
      trxid: string;
      total_amount: number;
      unique_code: number;
      checkout_url: string;
    };
  }

  it('shows the QR, the exact total with its unique code and a countdown, and turns paid on the sandbox button', async () => {
    const tx = await create(ctx.t.testKey, 25000);
    const page = await ctx.browser.newPage();
    await page.goto(`${ctx.base}/checkout/${tx.trxid}`);
    const total = `Rp${(tx.total_amount).toLocaleString('id-ID')}`;
    expect(await page.textContent('#total')).toBe(total);
    expect(await page.textContent('#unique-code')).toBe(String(tx.unique_code));
    await page.waitForFunction(() => /^\d\d:\d\d$/.test(document.getElementById('countdown')?.textContent ?? ''));
    const qrWidth = await page.$eval('#qr', (img) => (img as HTMLImageElement).naturalWidth);
    expect(qrWidth).toBeGreaterThan(0);
    expect(await page.textContent('#status-text')).toContain('Menunggu pembayaran');
    await page.screenshot({ path: join(tmpdir(), 'qg-checkout-pending.png') });

    await page.click('#simulate');
    await page.waitForSelector('main[data-status="paid"]');
    expect(await page.textContent('#status-text')).toContain('Pembayaran diterima');
    await page.screenshot({ path: join(tmpdir(), 'qg-checkout-paid.png') });
    await page.close();
  });

  it('learns of a payment recorded elsewhere through the live status stream', async () => {
    const tx = await create(ctx.t.liveKey, 30000);
    const page = await ctx.browser.newPage();
    await page.goto(`${ctx.base}/checkout/${tx.trxid}`);
    expect(await page.$('#simulate')).toBeNull();
    await page.waitForFunction(() => (document.getElementById('countdown')?.textContent ?? '') !== '');
    await recordPayment(ctx.t.deps, {
      merchantId: ctx.t.merchant.id,
      mode: 'live',
      source: 'e2e-test',
      sourcePaymentId: `e2e-${tx.trxid}`,
      amount: tx.total_amount,
      paidAt: Date.now(),
    });
    await page.waitForSelector('main[data-status="paid"]', { timeout: 10_000 });
    await page.close();
  });

  /** Every response of 400 or more, and every request that failed, that the page caused. */
  function failures(page: Page): string[] {
    const seen: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) seen.push(`${r.status()} ${r.url()}`);
    });
    page.on('requestfailed', (r) => seen.push(`${r.failure()?.errorText ?? 'failed'} ${r.url()}`));
    return seen;
  }

  it('turns paid within 3 seconds when the CLI pays in another process, and nothing it requests fails', async () => {
    const tx = await create(ctx.t.testKey, 40000);
    const page = await ctx.browser.newPage();
    const failed = failures(page);
    const stream = page.waitForResponse((r) => r.url().endsWith(`/checkout/${tx.trxid}/events`));
    await page.goto(`${ctx.base}/checkout/${tx.trxid}`);
    expect((await stream).status()).toBe(200);
    expect(await page.getAttribute('main', 'data-status')).toBe('pending');
    // The page declares its icon, so a browser does not ask for /favicon.ico (a 404). Headless
    // Chromium fetches no icon at all, so the page fetches it here, under the page's own CSP.
    const icon = await page.evaluate(async () => {
      const href = document.querySelector<HTMLLinkElement>('link[rel="icon"]')!.href;
      const res = await fetch(href);
      return { href, status: res.status, type: res.headers.get('content-type'), body: await res.text() };
    });
    expect(icon).toMatchObject({ href: `${ctx.base}/checkout/assets/icon.svg`, status: 200, type: 'image/svg+xml' });
    expect(icon.body).toMatch(/^<svg /);

    // On SQLite nothing of this process hears the CLI's commit: only the status watch's data_version
    // check can. On PostgreSQL the CLI's NOTIFY carries it.
    const paid = await runCommand(['pay', tx.trxid, '--json'], { DATABASE_URL: ctx.t.databaseUrl });
    expect(paid.code, paid.stderr).toBe(0);
    const committed = Date.now();
    await page.waitForSelector('main[data-status="paid"]', { timeout: 3000 });
    expect(Date.now() - committed).toBeLessThan(3000);
    expect(await page.textContent('#status-text')).toContain('Pembayaran diterima');
    expect(await page.isHidden('#live-note')).toBe(true);
    // The server ends the stream after `paid`; give the page a moment to see that end, then check
    // that nothing it asked for failed (no favicon 404, no aborted stream).
    await page.waitForTimeout(300);
    expect(failed).toEqual([]);
    await page.close();
  }, 180_000);

  it('shows an expired code as expired', async () => {
    const tx = await create(ctx.t.testKey, 35000);
    ctx.t.clock.advance(16 * 60 * 1000);
    const page = await ctx.browser.newPage();
    await page.goto(`${ctx.base}/checkout/${tx.trxid}`);
    await page.waitForSelector('main[data-status="expired"]');
    expect(await page.textContent('#status-text')).toContain('kedaluwarsa');
    await page.close();
  });

  it('answers an unknown transaction with a JSON 404', async () => {
    const res = await fetch(`${ctx.base}/checkout/trx_doesnotexist000000000`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('transaction_not_found');
  });
});
