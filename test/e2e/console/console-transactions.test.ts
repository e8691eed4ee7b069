import { userActor } from '../../../src/domain/actor.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import { sendDueEmails } from '../../../src/services/email/send-due-emails.js';
import { cancelTransaction } from '../../../src/services/transactions/cancel-transaction.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { addWebhookEndpoint } from '../../../src/services/webhooks/add-webhook-endpoint.js';
import { dispatchDueDeliveries } from '../../../src/workers/webhook-dispatcher.js';
import { useBrowserApp } from '../../helpers/browser.js';
import { addOperator } from '../../helpers/console.js';
import { loggedIn, openSection, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { createInput, seedMerchant } from '../../helpers/context.js';
import { Receiver } from '../../helpers/receiver.js';
import { insertRows, transactionRow } from '../../helpers/transaction-rows.js';

describe('console transactions in a real browser', () => {
  const ctx = useBrowserApp({ WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8' });
  let receiver: Receiver;
  let trxid = '';
  const REF = 'ORDER-2024-0042';

  beforeAll(async () => {
    const { t } = ctx;
    await addOperator(t.deps, 'ops@example.test');
    receiver = await Receiver.start();
    // The receiver fails the first delivery of the followed transaction's event and takes every other:
    // its timeline then shows a failed attempt, and the resend's success.
    let failedOnce = false;
    receiver.respond = (request) => {
      if (failedOnce || !request.body.includes(REF)) return { status: 200, body: 'ok' };
      failedOnce = true;
      return { status: 500, body: 'database is down' };
    };
    await addWebhookEndpoint(t.deps, { merchantId: t.merchant.id, url: receiver.url('/webhooks/qris') });
    const other = await seedMerchant(t.deps, 1, 'Warung Sari');

    const start = t.clock.ms;
    const hour = 3600_000;
    // Older rows of both merchants, in each state.
    await insertRows(t.deps, [
      transactionRow(t.merchant.id, start - 5 * hour, {
        ref: 'ORDER-2024-0038',
        email: 'dewi@example.id',
        amount: 48_000,
        total_amount: 48_117,
        unique_code: 117,
        status: 'paid',
        paid_at: start - 5 * hour + 90_000,
      }),
      transactionRow(other.merchant.id, start - 4 * hour, {
        ref: 'WS-1187',
        amount: 22_500,
        total_amount: 22_503,
        unique_code: 3,
        status: 'expired',
      }),
      transactionRow(t.merchant.id, start - 3 * hour, {
        ref: 'ORDER-2024-0039',
        email: 'agus@example.id',
        amount: 310_000,
        total_amount: 310_245,
        unique_code: 245,
        status: 'expired',
      }),
      transactionRow(other.merchant.id, start - 2 * hour, {
        ref: 'WS-1188',
        amount: 18_000,
        total_amount: 18_042,
        unique_code: 42,
        status: 'paid',
        paid_at: start - 2 * hour + 45_000,
      }),
    ]);
    t.clock.ms = start - 20 * 60_000;
    const cancelled = await createTransaction(t.deps, {
      ...createInput(t.merchant.id, 99_000),
      ref: 'ORDER-2024-0041',
      email: 'rina@example.id',
    });
    t.clock.ms = start - 10 * 60_000;
    await cancelTransaction(t.deps, {
      trxid: cancelled.transaction.id,
      owner: null,
      actor: userActor({ email: 'ops@example.test' }),
    });

    // The one this test follows: created with an invoice e-mail (no SMTP here, so it is skipped), paid in
    // the sandbox two minutes later, its webhook failing once.
    t.clock.ms = start - 4 * 60_000;
    const main = await createTransaction(t.deps, {
      ...createInput(t.merchant.id, 150_000),
      ref: REF,
      email: 'budi@example.id',
    });
    trxid = main.transaction.id;
    await sendDueEmails(t.deps, null);
    t.clock.ms = start - 2 * 60_000;
    await simulatePayment(t.deps, { merchantId: t.merchant.id, mode: 'test' }, trxid);
    await dispatchDueDeliveries(t.deps, { random: () => 0.5 });
    t.clock.ms = start;
    await createTransaction(t.deps, {
      ...createInput(t.merchant.id, 75_000),
      ref: 'ORDER-2024-0043',
      email: 'sari@example.id',
    });
  });
  afterAll(async () => receiver?.close());

  for (const viewport of [VIEWPORTS[1], VIEWPORTS[0]]) {
    it(`finds a transaction by its ref, shows its timeline, resends its webhook and exports the list (${viewport.name})`, async () => {
      const page = await loggedIn(ctx.browser, ctx.base, viewport, 'ops@example.test');
      await openSection(page, 'Transactions');
      await page.getByRole('heading', { name: 'Transactions' }).waitFor();
      expect(await page.locator('tbody tr').count()).toBe(7);
      const overflow = () =>
        page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(await overflow()).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(SHOTS, `transactions-${viewport.name}.png`), fullPage: true });
      if (viewport.name === 'desktop') await page.screenshot({ path: join(SHOTS, 'transactions.png') });

      await page.getByLabel('Search').fill(REF.toLowerCase());
      await page.getByLabel('Search').press('Enter');
      await page.waitForURL(/q=order-2024-0042/);
      expect(await page.locator('tbody tr').count()).toBe(1);
      expect(await page.locator('tbody tr').textContent()).toContain(REF);

      // The CSV export of what is shown: the header and this one transaction.
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Export CSV' }).click(),
      ]);
      expect(download.suggestedFilename()).toMatch(/^transactions-\d{4}-\d{2}-\d{2}\.csv$/);
      const lines = readFileSync((await download.path())!, 'utf8').split('\r\n');
      expect(lines[0]).toMatch(
        /^trxid,merchant_id,mode,status,amount,unique_code,total_amount,currency,ref,email,created_at/,
      );
      expect(lines.slice(1)).toHaveLength(2); // one record and the empty string after the last CRLF
      expect(lines[1]!.split(',').slice(0, 4)).toEqual([trxid, ctx.t.merchant.id, 'test', 'paid']);
      expect(lines[1]).toContain(`,${REF},budi@example.id,`);
      expect(lines[2]).toBe('');

      await page.getByRole('link', { name: trxid }).click();
      await page.getByRole('heading', { name: `Transaction ${trxid}` }).waitFor();
      const timeline = page.locator('ol.timeline > li .what');
      const entries = (await timeline.allTextContents()).map((s) => s.replace(/\s+/g, ' ').trim());
      // (The desktop run, first, resends once: the phone run sees that in the timeline too.)
      expect(entries.filter((e) => !e.startsWith('Webhook resent by'))).toEqual([
        expect.stringMatching(/^Created for Rp150\.\d{3}$/),
        'Invoice e-mail to budi@example.id skipped',
        expect.stringMatching(/^Payment reported by simulator: Rp\d/),
        'Paid',
        'Receipt e-mail to budi@example.id queued',
        expect.stringMatching(/^Webhook event transaction\.paid evt_/),
      ]);
      const attempts = page.locator('table.attempts tbody tr');
      const before = await attempts.count();
      expect(await attempts.first().textContent()).toContain('500');

      await page.getByRole('button', { name: 'Resend' }).click();
      // The redirect comes back to this same address, with the outcome in a one-time notice.
      await page.locator('p.notice[role="status"]').waitFor();
      await expect(page.getByRole('status').textContent()).resolves.toBe('Queued the webhook delivery to send now.');
      expect(await page.locator('.delivery .badge.pending').count()).toBe(1);
      // The worker's pass; then the page shows the new attempt, and the receiver has it.
      const received = receiver.requests.length;
      await dispatchDueDeliveries(ctx.t.deps, { random: () => 0.5 });
      expect(receiver.requests.length).toBe(received + 1);
      expect(receiver.requests.at(-1)!.body).toContain(trxid);
      await page.reload();
      expect(await attempts.count()).toBe(before + 1);
      expect(await attempts.last().textContent()).toContain('200');
      expect(await page.locator('.delivery .badge.succeeded').count()).toBe(1);
      expect(
        await page.locator('ol.timeline > li .what', { hasText: 'Webhook resent by user:ops@example.test' }).count(),
      ).toBe(viewport.name === 'desktop' ? 1 : 2);
      expect(await overflow()).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(SHOTS, `transaction-${viewport.name}.png`), fullPage: true });
      if (viewport.name === 'desktop') await page.screenshot({ path: join(SHOTS, 'transaction.png'), fullPage: true });
      await page.close();
    });
  }
});
