// A refunded transaction's receipt in a real Chromium, at a phone's size and a desktop's (issue 35, finding
// 6): partly refunded it says so with what remains paid; fully refunded its stamp is DIKEMBALIKAN /
// REFUNDED with Rp0 remaining, and LUNAS / PAID is nowhere on the slip, in either language.
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { formatRupiah } from '../../../src/domain/money.js';
import type { Viewer } from '../../../src/domain/viewer.js';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import { makeReceiptLink } from '../../../src/services/receipts/make-receipt-link.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { refundTransaction } from '../../../src/services/refunds/refund-transaction.js';
import { useBrowserApp } from '../../helpers/browser.js';
import { VIEWPORTS } from '../../helpers/console-browser.js';
import { createInput } from '../../helpers/context.js';

/** Pictures looked at, not shown in the docs. */
const LOOKED_AT = join(tmpdir(), 'qg-shots');
mkdirSync(LOOKED_AT, { recursive: true });

const operator: Viewer = {
  userId: 'usr_test',
  email: 'ops@example.test',
  role: 'operator',
  merchantIds: [],
  sessionKey: 'k',
  actor: { kind: 'user' as const, email: 'ops@example.test' },
};

/** The value beside a label on the slip. */
const lineValue = (page: Page, label: string) =>
  page
    .locator('.receipt .line')
    .filter({ has: page.getByText(label, { exact: true }) })
    .locator('span')
    .last()
    .textContent();

describe('a refunded receipt in a real browser', () => {
  const ctx = useBrowserApp();

  for (const size of VIEWPORTS) {
    it(`at ${size.name} size: partly refunded, then refunded in full, never PAID once refunded`, async () => {
      const { t } = ctx;
      const tx = (await createTransaction(t.deps, createInput(t.merchant.id, size.name === 'phone' ? 35_000 : 52_000)))
        .transaction;
      await simulatePayment(t.deps, { merchantId: t.merchant.id, mode: 'test' }, tx.id);
      const token = await makeReceiptLink(t.deps, operator, tx.id);
      const refund = (amount: number) =>
        refundTransaction(t.deps, {
          trxid: tx.id,
          owner: null,
          amount,
          reason: 'barang rusak',
          reference: null,
          idempotency: null,
          actor: { kind: 'cli', operator: 'ops' },
        });
      const total = tx.total_amount;

      const page = await ctx.browser.newPage({ viewport: { width: size.width, height: size.height } });
      page.setDefaultTimeout(10_000);
      try {
        await refund(10_000);
        await page.goto(`${ctx.base}/receipt/${token}?lang=id`);
        await page.getByText('SEBAGIAN DIKEMBALIKAN', { exact: true }).waitFor();
        expect(await page.getByText('LUNAS', { exact: true }).count()).toBe(0);
        expect(await lineValue(page, 'Dikembalikan')).toBe('-Rp10.000');
        expect(await lineValue(page, 'Sisa dibayar')).toBe(formatRupiah(total - 10_000));
        await page.screenshot({ path: join(LOOKED_AT, `receipt-partly-refunded-${size.name}.png`), fullPage: true });

        await refund(total - 10_000);
        await page.reload();
        const stamp = page.getByText('DIKEMBALIKAN', { exact: true }).first();
        await stamp.waitFor();
        expect(await stamp.isVisible()).toBe(true);
        expect(await page.getByText('LUNAS', { exact: true }).count()).toBe(0);
        expect(await page.locator('.receipt').textContent()).not.toContain('LUNAS');
        expect(await lineValue(page, 'Dibayar')).toBe(formatRupiah(total));
        expect(await lineValue(page, 'Sisa dibayar')).toBe('Rp0');
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        await page.screenshot({ path: join(LOOKED_AT, `receipt-refunded-id-${size.name}.png`), fullPage: true });

        // The language switch, as a payer uses it: the same slip in English.
        await page.getByRole('link', { name: 'Receipt: English' }).click();
        await page.getByText('REFUNDED', { exact: true }).waitFor();
        expect(await page.getByText('PAID', { exact: true }).count()).toBe(0);
        expect(await page.locator('.receipt').textContent()).not.toMatch(/\bPAID\b/);
        expect(await lineValue(page, 'Refunded')).toBe(`-${formatRupiah(total)}`);
        expect(await lineValue(page, 'Remains paid')).toBe('Rp0');
        await page.screenshot({ path: join(LOOKED_AT, `receipt-refunded-en-${size.name}.png`), fullPage: true });

        // Printed at 80 mm it says the same.
        await page.getByRole('link', { name: '80 mm' }).click();
        await page.emulateMedia({ media: 'print' });
        await page.getByText('REFUNDED', { exact: true }).waitFor();
        expect(await page.locator('body').getAttribute('class')).toBe('paper-80');
        await page.locator('.receipt').screenshot({ path: join(LOOKED_AT, `receipt-refunded-80mm-${size.name}.png`) });
      } finally {
        await page.close();
      }
    });
  }
});
