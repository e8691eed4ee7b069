// The console's payments, webhooks and sources pages in a real Chromium, at a phone's size and a
// desktop's: assign an unmatched payment, add a webhook endpoint (its secret shown once), switch a
// payment source off and on.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowserApp } from '../../helpers/browser.js';
import { addOperator } from '../../helpers/console.js';
import { loggedIn, openSection, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { createInput } from '../../helpers/context.js';
import { addWebhookSource } from '../../../src/payment-sources/webhook/setup.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { readTransaction } from '../../../src/storage/queries/transactions.js';
import { dispatchDueDeliveries } from '../../../src/workers/webhook-dispatcher.js';

describe('console payments, webhooks and sources in a real browser', () => {
  const ctx = useBrowserApp();

  beforeAll(async () => {
    await addOperator(ctx.t.deps);
  });

  /** The page scrolls sideways only inside its tables, never as a whole. */
  async function fitsWidth(page: Page): Promise<boolean> {
    return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  }

  /** The page, at its full length, as `<name>-<viewport>.png`; at the desktop's also its first screen as `<name>.png`. */
  async function shoot(page: Page, name: string, viewport: (typeof VIEWPORTS)[number]): Promise<void> {
    await page.screenshot({ path: join(SHOTS, `${name}-${viewport.name}.png`), fullPage: true });
    if (viewport.name === 'desktop') await page.screenshot({ path: join(SHOTS, `${name}.png`) });
  }

  for (const size of VIEWPORTS) {
    it(`at ${size.name} size: assigns an unmatched payment, adds a webhook endpoint, disables and enables a source`, async () => {
      const { t } = ctx;
      // A payment dated before the only transaction of its total was made: unmatched, with that
      // transaction as its candidate (a payer's bank clock running behind, say).
      const tx = (await createTransaction(t.deps, createInput(t.merchant.id, size.name === 'phone' ? 21_000 : 32_000)))
        .transaction;
      const reported = await recordPayment(t.deps, {
        merchantId: t.merchant.id,
        mode: 'test',
        source: 'e2e-bank',
        sourcePaymentId: `e2e-${size.name}`,
        amount: tx.total_amount,
        paidAt: tx.created_at - 5 * 60_000,
        payerName: 'Siti Rahma',
        issuer: 'OVO',
      });
      expect(reported.outcome).toBe('unmatched');
      const source = await addWebhookSource(t.deps, { merchantId: t.merchant.id, mode: 'test' });

      const page = await loggedIn(ctx.browser, ctx.base, size, 'ops@example.test');
      page.on('dialog', (dialog) => void dialog.accept());
      try {
        // Payments: the unmatched one, its candidate, and the assign form.
        await page.goto(`${ctx.base}/dashboard/payments?status=unmatched`);
        const card = page.locator(`#pay-${reported.payment.id}`);
        await card.waitFor();
        expect(await card.textContent()).toContain('Siti Rahma');
        expect(await card.getByRole('cell', { name: tx.id }).count()).toBe(1);
        expect(await fitsWidth(page)).toBe(true);
        await card.getByLabel('Transaction').fill(tx.id);
        // The field suggests the candidates (a datalist): its open list would take the next tap, as it does
        // a person's, so the field is left first.
        await card.getByLabel('Transaction').blur();
        await card.evaluate((el) => el.scrollIntoView());
        await shoot(page, 'payments', size);
        await card.getByRole('button', { name: 'Assign' }).click();
        const done = page.getByRole('status');
        await done.waitFor();
        expect(await done.textContent()).toBe(
          `Payment ${reported.payment.id} now pays ${tx.id}; the transaction is paid.`,
        );
        expect(await page.locator(`#pay-${reported.payment.id}`).count()).toBe(0);
        expect(await readTransaction(t.deps.db, tx.id)).toMatchObject({
          status: 'paid',
          payment_id: reported.payment.id,
        });
        await page.getByLabel('Status').selectOption('matched');
        await page.waitForURL(/status=matched/);
        const row = page.getByRole('row').filter({ hasText: tx.id });
        expect(await row.locator('.badge.paid').textContent()).toBe('paid');

        // Webhooks: add an endpoint; the secret is shown on that answer only.
        await page.goto(`${ctx.base}/dashboard/webhooks`);
        await page.getByLabel('URL').fill(`https://hooks.example.test/${size.name}`);
        await page.getByLabel('transaction.expired').uncheck();
        await page.getByRole('button', { name: 'Add endpoint' }).click();
        const secret = (await page.locator('#endpoint-secret').textContent()) ?? '';
        expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
        expect((await page.content()).split(secret)).toHaveLength(2);
        expect(await page.getByRole('status').textContent()).toMatch(/^Endpoint we_[0-9A-Za-z]+ added\.$/);
        expect(await fitsWidth(page)).toBe(true);
        await shoot(page, 'webhooks', size);
        await openSection(page, 'Webhooks');
        await page.getByRole('link', { name: `https://hooks.example.test/${size.name}` }).waitFor();
        expect(await page.content()).not.toContain(secret);
        expect(
          await page
            .getByRole('row')
            .filter({ hasText: `https://hooks.example.test/${size.name}` })
            .textContent(),
        ).not.toContain('transaction.expired');

        // Its deliveries: an unmatched payment's event, answered with an error page by the receiver.
        await recordPayment(t.deps, {
          merchantId: t.merchant.id,
          mode: 'test',
          source: 'e2e-bank',
          sourcePaymentId: `e2e-stray-${size.name}`,
          amount: 777,
          paidAt: t.clock.now(),
        });
        await dispatchDueDeliveries(t.deps, {
          post: async () => ({
            statusCode: 503,
            responseBody: '<h1>Busy</h1><script>alert(1)</script>',
            retryAfter: null,
            error: null,
            durationMs: 87,
          }),
        });
        await page.getByRole('link', { name: `https://hooks.example.test/${size.name}` }).click();
        const attempt = page.locator('ol.timeline li').first();
        expect(await attempt.textContent()).toContain('HTTP 503');
        expect(await attempt.locator('pre.excerpt').textContent()).toBe('<h1>Busy</h1><script>alert(1)</script>');
        expect(await fitsWidth(page)).toBe(true);
        await shoot(page, 'webhook-deliveries', size);

        // Sources: disable (confirmed) and enable again.
        await page.goto(`${ctx.base}/dashboard/sources`);
        const sourceCard = page.locator(`section[aria-labelledby="source-${source.id}"]`);
        await sourceCard.getByRole('button', { name: 'Disable' }).click();
        await page
          .getByRole('status')
          .filter({ hasText: `Source ${source.id} is disabled.` })
          .waitFor();
        expect(
          (
            await t.deps.db
              .selectFrom('payment_sources')
              .select('enabled')
              .where('id', '=', source.id)
              .executeTakeFirstOrThrow()
          ).enabled,
        ).toBe(0);
        expect(await sourceCard.locator('.badge').textContent()).toBe('disabled');
        await sourceCard.getByRole('button', { name: 'Enable' }).click();
        await page
          .getByRole('status')
          .filter({ hasText: `Source ${source.id} is enabled.` })
          .waitFor();
        expect(
          (
            await t.deps.db
              .selectFrom('payment_sources')
              .select('enabled')
              .where('id', '=', source.id)
              .executeTakeFirstOrThrow()
          ).enabled,
        ).toBe(1);
        expect(await fitsWidth(page)).toBe(true);
        await shoot(page, 'sources', size);
      } finally {
        await page.close();
      }
    }, 120_000);
  }
});
