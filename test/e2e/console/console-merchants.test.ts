import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowserApp } from '../../helpers/browser.js';
import { addOperator, PASSWORD } from '../../helpers/console.js';
import { vectors } from '../../helpers/context.js';
import { withNmid } from '../../helpers/qris.js';
import { parseMerchantQris } from '../../../src/domain/merchant-qris.js';
import { closeQrImageReaders } from '../../../src/imaging/read-qr-image.js';
import { photoVariant, renderPhotoJpeg } from '../../helpers/qr-photo.js';
import { openSection } from '../../helpers/console-browser.js';

const SHOTS = process.env.QG_SCREENSHOTS ?? join(tmpdir(), 'qg-shots');

// The desktop run saves the phone's two stickers again with NMIDs of their own: a second merchant with
// one NMID is refused (issue 26, item 10).
const twin = (v: (typeof vectors.vectors)[number], nmid: string) => ({
  merchant: v.merchant,
  static: withNmid(v.static, nmid),
});
const VIEWPORTS = [
  { name: 'phone', viewport: { width: 390, height: 844 }, png: vectors.vectors[1]!, jpeg: vectors.vectors[2]! },
  {
    name: 'desktop',
    viewport: { width: 1280, height: 800 },
    png: twin(vectors.vectors[2]!, 'ID1029900000402'),
    jpeg: twin(vectors.vectors[1]!, 'ID1029900000401'),
  },
] as const;

describe('console merchants and keys in a real browser', () => {
  const ctx = useBrowserApp();

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    await addOperator(ctx.t.deps);
  });
  afterAll(() => closeQrImageReaders());

  async function logIn(page: Page): Promise<void> {
    await page.goto(`${ctx.base}/dashboard`);
    await page.getByLabel('Email').fill('ops@example.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }

  /** Adds a merchant through the form with this image, checks the preview, saves, and finds it in the list. */
  async function addMerchant(
    page: Page,
    name: string,
    file: { name: string; mimeType: string; buffer: Buffer },
    expected: { merchantName: string; city: string; nmid: string },
    shot: string | null,
  ) {
    await page.goto(`${ctx.base}/dashboard/merchants`);
    await page.getByRole('link', { name: 'Add merchant' }).click();
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('QRIS image').setInputFiles(file);
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('heading', { name: 'Is this the right merchant?' }).waitFor();
    const preview = page.locator('section.preview');
    for (const text of [name, expected.merchantName, expected.city, expected.nmid])
      await expect(preview.getByText(text, { exact: true }).count()).resolves.toBeGreaterThan(0);
    expect(await preview.locator('.badge').allTextContents()).toEqual(['static', 'valid']);
    // The QR drawn from what was read, and nothing wider than the screen.
    expect(await preview.locator('img').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    if (shot) await page.screenshot({ path: join(SHOTS, shot), fullPage: true });
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText(`Merchant ${name} added.`).waitFor();
    const row = page.locator('tbody tr', { hasText: name });
    await expect(row.count()).resolves.toBe(1);
    expect(await row.textContent()).toContain(expected.merchantName);
  }

  for (const { name, viewport, png, jpeg } of VIEWPORTS) {
    it(`adds merchants from a PNG and from a phone photo, then creates, uses and revokes a key (${name})`, async () => {
      const context = await ctx.browser.newContext({ viewport });
      const page = await context.newPage();
      const failed: string[] = [];
      // Script errors and CSP refusals; a refused upload's 415 is a "failed to load" line, and expected.
      page.on('pageerror', (err) => failed.push(err.message));
      page.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) failed.push(m.text());
      });
      await logIn(page);

      // A refusal comes back on the form, in words, with what was typed kept.
      await page.goto(`${ctx.base}/dashboard/merchants/new`);
      await page.getByLabel('Name', { exact: true }).fill('Wrong file');
      await page
        .getByLabel('QRIS image')
        .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a picture') });
      await page.getByRole('button', { name: 'Preview' }).click();
      expect(await page.getByRole('alert').textContent()).toBe('This file is not a PNG or JPEG image.');
      expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Wrong file');
      if (name === 'desktop') await page.screenshot({ path: join(SHOTS, 'merchant-refused.png'), fullPage: true });

      const pngName = `PNG shop ${name}`;
      const pngBuffer = await QRCode.toBuffer(png.static, { type: 'png', errorCorrectionLevel: 'M', scale: 8 });
      const expectPng = {
        merchantName: png.merchant,
        city: png.static.includes('SURABAYA') ? 'SURABAYA' : 'BANDUNG',
        nmid: parseMerchantQris(png.static).nmid!,
      };
      await addMerchant(
        page,
        pngName,
        { name: 'qris.png', mimeType: 'image/png', buffer: pngBuffer },
        expectPng,
        name === 'desktop' ? 'merchant-preview.png' : 'merchant-preview-phone.png',
      );

      const photo = await renderPhotoJpeg(jpeg.static, photoVariant(name === 'phone' ? 3 : 7));
      const expectJpeg = {
        merchantName: jpeg.merchant,
        city: jpeg.static.includes('SURABAYA') ? 'SURABAYA' : 'BANDUNG',
        nmid: parseMerchantQris(jpeg.static).nmid!,
      };
      await addMerchant(
        page,
        `Photo shop ${name}`,
        { name: 'sticker.jpg', mimeType: 'image/jpeg', buffer: photo },
        expectJpeg,
        null,
      );
      await page.screenshot({ path: join(SHOTS, `merchants-${name}.png`), fullPage: true });

      // A key for the PNG merchant, shown once.
      await page.goto(`${ctx.base}/dashboard/keys`);
      await page.getByLabel('Merchant').selectOption({ label: pngName });
      await page.getByLabel('Mode').selectOption('test');
      await page.getByRole('button', { name: 'Create key' }).click();
      const secret = page.locator('#new-key');
      await secret.waitFor();
      const key = (await secret.textContent())!.trim();
      expect(key).toMatch(/^sk_test_[A-Za-z0-9]{40}$/);
      await expect(page.getByText('This is the only time the key is shown.', { exact: false }).count()).resolves.toBe(
        1,
      );
      await page.screenshot({ path: join(SHOTS, name === 'desktop' ? 'keys.png' : 'keys-phone.png'), fullPage: true });

      const create = () =>
        fetch(`${ctx.base}/api/payment-gateway/cqris`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'amount=10000',
        });
      const created = await create();
      expect(created.status).toBe(201);
      expect(((await created.json()) as { data: { merchant_id?: string } }).data).toBeTruthy();

      // Reloading the list shows the key's prefix only, never the key.
      await page.goto(`${ctx.base}/dashboard/keys`);
      expect(await page.content()).not.toContain(key);
      const row = page.locator('tbody tr', { hasText: key.slice(0, 12) });
      page.once('dialog', (dialog) => void dialog.accept());
      await row.getByRole('button', { name: 'Revoke' }).click();
      await page.getByText(/revoked: requests with it are refused/).waitFor();
      expect((await create()).status).toBe(401);

      await openSection(page, 'Audit log');
      await page.getByRole('heading', { name: 'Audit log' }).waitFor();
      expect(await page.locator('tbody tr', { hasText: 'api_key.revoke' }).count()).toBeGreaterThan(0);
      await page.screenshot({ path: join(SHOTS, `audit-${name}.png`), fullPage: true });
      expect(failed).toEqual([]);
      await context.close();
    }, 60_000);
  }
});
