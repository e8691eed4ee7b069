// issue 26, item 11: the console's rough edges, in a real Chromium at a phone's size and a desktop's. The
// overview with no webhook endpoints says so; the sources form shows each kind's own fields (all of them,
// labelled, without script); the payments list breaks no word in the middle and links the transaction a
// refused payment was compared with; Indonesian pages say "produksi"/"uji"; no page load asks for anything
// that is not there (a favicon); the console calls the merchant by the gateway's name and shows the QRIS's
// beside it, while the checkout page shows the QRIS's.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowserApp } from '../../helpers/browser.js';
import { addOperator } from '../../helpers/console.js';
import { loggedIn, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { createInput } from '../../helpers/context.js';
import { addWebhookSource } from '../../../src/payment-sources/webhook/setup.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';

type Size = (typeof VIEWPORTS)[number];

/**
 * The words of table cells that wrap inside themselves where they need not. In a real table (a desktop)
 * no word may: a column is at least as wide as its longest word, and a wide table scrolls in its frame.
 * In a phone's cards the value has the width left beside its label, and only a word longer than that
 * (a 35-character id) may break. A URL cell may always break.
 */
async function wordsBrokenInside(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const broken: string[] = [];
    for (const cell of Array.from(document.querySelectorAll('main td:not(.url)'))) {
      const style = getComputedStyle(cell);
      const card = style.display !== 'table-cell';
      const contentRight =
        cell.getBoundingClientRect().right -
        Number.parseFloat(style.paddingRight) -
        Number.parseFloat(style.borderRightWidth);
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
        for (const word of (node.textContent ?? '').matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, word.index);
          range.setEnd(node, word.index + word[0].length);
          const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
          if (new Set(rects.map((r) => Math.round(r.top))).size <= 1) continue;
          const width = rects.reduce((sum, r) => sum + r.width, 0);
          // The line the word's later parts start on runs from their left to the cell's content edge.
          const room = contentRight - Math.min(...rects.map((r) => r.left));
          if (!card || width <= room + 1) broken.push(word[0]);
        }
      }
    }
    return broken;
  });
}

/** The page's main text as a reader sees it, without ids, codes and addresses (which are data, not words). */
async function wordsOfMain(page: Page): Promise<string> {
  return page.evaluate(() => {
    const main = document.querySelector('main')!.cloneNode(true) as HTMLElement;
    for (const data of Array.from(main.querySelectorAll('.mono, code, .secret, script'))) data.remove();
    return main.textContent ?? '';
  });
}

describe('the console rough edges of issue 26 item 11, in a real browser', () => {
  const ctx = useBrowserApp();

  beforeAll(async () => {
    await addOperator(ctx.t.deps);
    await addWebhookSource(ctx.t.deps, { merchantId: ctx.t.merchant.id, mode: 'test' });
  });

  async function shoot(page: Page, name: string, size: Size): Promise<void> {
    await page.screenshot({ path: join(SHOTS, `item11-${name}-${size.name}.png`), fullPage: true });
  }

  for (const size of VIEWPORTS) {
    it(`at ${size.name} size`, async () => {
      const { t } = ctx;
      // A payment that names a transaction of another total (refused, compared with it), reported by a
      // source whose name is one word.
      const tx = (await createTransaction(t.deps, createInput(t.merchant.id, size.name === 'phone' ? 41_000 : 42_000)))
        .transaction;
      const refused = await recordPayment(t.deps, {
        merchantId: t.merchant.id,
        mode: 'test',
        source: 'simulator',
        sourcePaymentId: `item11-${size.name}`,
        amount: tx.total_amount + 500,
        paidAt: t.clock.now(),
        trxid: tx.id,
        payerName: 'Siti Rahma',
        issuer: 'OVO',
      });
      expect(refused.reason).toBe('amount_mismatch');

      const page = await loggedIn(ctx.browser, ctx.base, size, 'ops@example.test');
      // e) Nothing a console page loads is missing: no /favicon.ico 404 (the frame names its icon).
      const missing: string[] = [];
      page.on('response', (response) => {
        if (response.status() >= 400) missing.push(`${response.status()} ${response.url()}`);
      });
      try {
        // a) No endpoints: the overview says so and links to adding one.
        await page.goto(`${ctx.base}/dashboard`);
        const endpoints = page.getByRole('heading', { name: 'Failing webhook endpoints' }).locator('xpath=..');
        expect(await endpoints.getByText('No webhook endpoints yet.').isVisible()).toBe(true);
        expect(await page.getByText('Every webhook endpoint is delivering.').count()).toBe(0);
        await shoot(page, 'overview', size);
        await endpoints.getByRole('link', { name: 'Add one' }).click();
        await page.getByRole('heading', { name: 'Add endpoint' }).waitFor();
        expect(page.url()).toBe(`${ctx.base}/dashboard/webhooks#add-endpoint-title`);

        // b) The sources form: a signed webhook has no fields of its own; a feed shows its three.
        await page.goto(`${ctx.base}/dashboard/sources`);
        const feedFields = [
          page.getByLabel(/^Feed URL/),
          page.getByLabel(/^Poll interval/),
          page.getByLabel(/^Field mapping/),
        ];
        expect(await page.getByLabel('Type').inputValue()).toBe('webhook');
        for (const field of feedFields) expect(await field.isVisible()).toBe(false);
        await page.getByRole('heading', { name: 'Add source' }).scrollIntoViewIfNeeded();
        await shoot(page, 'sources-webhook', size);
        await page.getByLabel('Type').selectOption({ label: 'Mutation feed' });
        for (const field of feedFields) expect(await field.isVisible()).toBe(true);
        expect(await page.getByLabel('Feed URL (Mutation feed only)').isVisible()).toBe(true);
        await shoot(page, 'sources-feed', size);
        await page.getByLabel('Type').selectOption({ label: 'Signed webhook' });
        for (const field of feedFields) expect(await field.isVisible()).toBe(false);

        // c) The payments list: no word broken in the middle, and the compared transaction linked.
        await page.goto(`${ctx.base}/dashboard/payments?status=unmatched`);
        expect(await wordsBrokenInside(page)).toEqual([]);
        const row = page.getByRole('row').filter({ has: page.locator(`a[href="#pay-${refused.payment.id}"]`) });
        expect(await row.getByText(`Compared with ${tx.id}`).isVisible()).toBe(true);
        if (size.name === 'desktop')
          expect(await row.getByRole('cell', { name: 'simulator', exact: true }).isVisible()).toBe(true);
        await shoot(page, 'payments', size);
        const card = page.locator(`#pay-${refused.payment.id}`);
        expect(await card.getByText('The transaction it named has another total.').isVisible()).toBe(true);
        await card.getByRole('link', { name: tx.id }).click();
        await page.getByRole('heading', { level: 1 }).waitFor();
        expect(page.url()).toBe(`${ctx.base}/dashboard/transactions/${tx.id}`);

        // f) The console's name for the merchant, and its QRIS's beside it; the payer's page shows the QRIS's.
        await page.goto(`${ctx.base}/dashboard/merchants`);
        const merchantRow = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'Test Merchant' }) });
        expect(await merchantRow.getByText('QRIS name: Warung Contoh').isVisible()).toBe(true);
        await shoot(page, 'merchants', size);
        await merchantRow.getByRole('link', { name: 'Test Merchant' }).click();
        await page.getByRole('heading', { level: 1, name: 'Test Merchant' }).waitFor();
        expect(await page.getByText('QRIS name: Warung Contoh').isVisible()).toBe(true);
        expect(await page.getByText(/payers see the name in its QRIS/).isVisible()).toBe(true);
        await shoot(page, 'merchant', size);
        await page.goto(`${ctx.base}/checkout/${tx.id}`);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Warung Contoh');
        expect(await page.getByText('Test Merchant').count()).toBe(0);

        // d) In Indonesian every mode shown is "produksi" or "uji", never "live" or "test".
        await page.goto(`${ctx.base}/dashboard/lang/id?back=/dashboard`);
        await page.getByRole('heading', { name: 'Ringkasan' }).waitFor();
        expect(await page.getByLabel('Mode').locator('option').allTextContents()).toEqual(['produksi', 'uji']);
        for (const path of [
          '/dashboard',
          '/dashboard/keys',
          '/dashboard/transactions',
          `/dashboard/transactions/${tx.id}`,
          '/dashboard/payments?status=unmatched',
          '/dashboard/sources',
          `/dashboard/merchants/${t.merchant.id}`,
        ]) {
          await page.goto(`${ctx.base}${path}`);
          // The merchant's name ("Test Merchant") is data too.
          expect((await wordsOfMain(page)).replaceAll('Test Merchant', ''), path).not.toMatch(/\b(live|test)\b/i);
        }
        await page.goto(`${ctx.base}/dashboard/keys`);
        expect(await page.locator('main td .badge').allTextContents()).toContain('uji');
        await shoot(page, 'keys-id', size);

        expect(missing).toEqual([]);
        // And an address no page names still finds the icon.
        const favicon = await page.request.get(`${ctx.base}/favicon.ico`);
        expect(favicon.status()).toBe(200);
        expect(favicon.headers()['content-type']).toBe('image/svg+xml');
      } finally {
        await page.close();
      }
    });
  }

  it('without JavaScript, the sources form shows every field, each labelled with the kinds it is for', async () => {
    const context = await ctx.browser.newContext({ viewport: VIEWPORTS[0], javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      await page.goto(`${ctx.base}/dashboard`);
      await page.getByLabel('Email').fill('ops@example.test');
      await page.getByLabel('Password').fill('correct horse battery');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      await page.goto(`${ctx.base}/dashboard/sources`);
      for (const label of [
        'Feed URL (Mutation feed only)',
        'Poll interval (seconds) (Mutation feed only)',
        'Method (Mutation feed only)',
        'Headers (Mutation feed only)',
        'Body (Mutation feed only)',
        'Field mapping (JSON or a preset) (Mutation feed only)',
      ]) {
        expect(await page.getByLabel(label).isVisible(), label).toBe(true);
      }
      await page.getByRole('heading', { name: 'Add source' }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, 'item11-sources-nojs-phone.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });
});
