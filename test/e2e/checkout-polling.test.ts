import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createTransaction } from '../../src/services/create-transaction.js';
import { simulatePayment } from '../../src/sources/simulator.js';
import { launchBrowser } from '../helpers/browser.js';
import { createInput, createTestApp, type TestApp } from '../helpers/context.js';
import { openEventStream, type EventStream } from '../helpers/event-stream.js';

// One stream per transaction: a page opened while another holds it is refused and must poll.
describe('checkout page whose live stream is refused', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  const held: EventStream[] = [];

  beforeAll(async () => {
    t = await createTestApp({ PUBLIC_BASE_URL: 'http://127.0.0.1', CHECKOUT_STREAMS_PER_TRANSACTION: '1' });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    for (const s of held) s.close();
    await browser?.close();
    await t?.close();
  });

  it.each([
    ['phone', { width: 390, height: 844 }],
    ['desktop', { width: 1280, height: 800 }],
  ])('falls back to polling its status and still turns paid (%s)', async (name, viewport) => {
    const trxid = (await createTransaction(t.deps, createInput(t.merchant.id, name === 'phone' ? 21_000 : 22_000))).transaction.id;
    const hog = await openEventStream(`${base}/checkout/${trxid}/events`);
    held.push(hog);
    expect(hog.status).toBe(200);

    const page = await browser.newPage({ viewport });
    const polls: number[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith(`/checkout/${trxid}/status`)) polls.push(r.status());
    });
    const refused = page.waitForResponse((r) => r.url().endsWith(`/checkout/${trxid}/events`));
    await page.goto(`${base}/checkout/${trxid}`);
    const stream = await refused;
    expect(stream.status()).toBe(429);
    expect(stream.headers()['retry-after']).toBe('30');
    // (Its JSON body is checked in checkout-streams.test.ts: Chromium keeps no body of an EventSource's.)

    await page.waitForSelector('#live-note', { state: 'visible' });
    expect(await page.textContent('#live-note')).toContain('Status diperiksa setiap 3 detik');
    expect(await page.textContent('#status-text')).toContain('Menunggu pembayaran');
    await page.screenshot({ path: join(tmpdir(), `qg-checkout-polling-${name}.png`), fullPage: true });

    await simulatePayment(t.deps, { merchantId: t.merchant.id, mode: 'test' }, trxid);
    await page.waitForSelector('main[data-status="paid"]', { timeout: 10_000 });
    expect(await page.textContent('#status-text')).toContain('Pembayaran diterima');
    expect(await page.isHidden('#live-note')).toBe(true);
    // It learnt of the payment by polling (the only way it had), which answered every time.
    expect(polls.length).toBeGreaterThan(0);
    expect(polls.every((status) => status === 200)).toBe(true);
    await page.screenshot({ path: join(tmpdir(), `qg-checkout-polling-${name}-paid.png`), fullPage: true });
    await page.close();
  });
});
