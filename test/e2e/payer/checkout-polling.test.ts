import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import { useBrowserApp } from '../../helpers/browser.js';
import { createInput } from '../../helpers/context.js';
import { openEventStream, type EventStream } from '../../helpers/event-stream.js';

// One stream per transaction: a page opened while another holds it is refused and must poll.
describe('checkout page whose live stream is refused', () => {
  const ctx = useBrowserApp({ CHECKOUT_STREAMS_PER_TRANSACTION: '1' });
  const held: EventStream[] = [];

  afterAll(() => {
    for (const s of held) s.close();
  });

  it.each([
    ['phone', { width: 390, height: 844 }],
    ['desktop', { width: 1280, height: 800 }],
  ])('falls back to polling its status and still turns paid (%s)', async (name, viewport) => {
    const trxid = (
      await createTransaction(ctx.t.deps, createInput(ctx.t.merchant.id, name === 'phone' ? 21_000 : 22_000))
    ).transaction.id;
    const hog = await openEventStream(`${ctx.base}/checkout/${trxid}/events`);
    held.push(hog);
    expect(hog.status).toBe(200);

    const page = await ctx.browser.newPage({ viewport });
    const polls: number[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith(`/checkout/${trxid}/status`)) polls.push(r.status());
    });
    const refused = page.waitForResponse((r) => r.url().endsWith(`/checkout/${trxid}/events`));
    await page.goto(`${ctx.base}/checkout/${trxid}`);
    const stream = await refused;
    expect(stream.status()).toBe(429);
    expect(stream.headers()['retry-after']).toBe('30');
    // (Its JSON body is checked in checkout-streams.test.ts: Chromium keeps no body of an EventSource's.)

    await page.waitForSelector('#live-note', { state: 'visible' });
    expect(await page.textContent('#live-note')).toContain('Status diperiksa setiap 3 detik');
    expect(await page.textContent('#status-text')).toContain('Menunggu pembayaran');
    await page.screenshot({ path: join(tmpdir(), `qg-checkout-polling-${name}.png`), fullPage: true });

    await simulatePayment(ctx.t.deps, { merchantId: ctx.t.merchant.id, mode: 'test' }, trxid);
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
