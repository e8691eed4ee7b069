import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowserApp } from '../../helpers/browser.js';
import { loggedIn, openSection, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { addMerchantUser, PASSWORD } from '../../helpers/console.js';
import { hashPassword } from '../../../src/hashing/passwords.js';
import { insertUser } from '../../../src/storage/queries/users.js';
import { merchantUserRow } from '../../../src/services/users/merchant-user-row.js';
import { vectors } from '../../helpers/context.js';
import { CQRIS } from '../../helpers/api.js';
import { createMerchant } from '../../../src/services/merchants/create-merchant.js';
import { parseMerchantQris } from '../../../src/domain/merchant-qris.js';
import { buildQris, parseQris, type TlvField } from '../../../src/domain/qris/index.js';
import { renderCleanPng } from '../../helpers/qr-photo.js';
import { closeQrImageReaders } from '../../../src/imaging/read-qr-image.js';

// The self-service merchant's first hour on a public gateway (issue 26, items 14 to 17), in a real
// browser at both sizes.
describe('a newcomer in the merchant portal', () => {
  const ctx = useBrowserApp({ SIGNUP: 'open', SMTP_URL: 'smtp://127.0.0.1:9', MAIL_FROM: 'gateway@example.com' });

  afterAll(async () => closeQrImageReaders());

  /** A self-service user as confirming a sign-up leaves it: its address confirmed, no merchant yet. */
  async function addNewcomer(email: string): Promise<void> {
    const now = ctx.t.clock.now();
    const row = merchantUserRow(email, await hashPassword(PASSWORD), now, now);
    await ctx.t.deps.db.runInTransaction((trx) => insertUser(trx, row));
  }

  /** A static QRIS of its own: the fixture's first, with this name (tag 59) and NMID (51/02). */
  function qrisOf(name: string, nmid: string): string {
    const swap = (f: TlvField): TlvField =>
      f.tag === '59'
        ? { tag: '59', value: name }
        : f.tag === '51'
          ? { ...f, children: f.children!.map((c) => (c.tag === '02' ? { tag: '02', value: nmid } : c)) }
          : f;
    return buildQris(parseQris(vectors.vectors[0]!.static).fields.map(swap));
  }

  const noSidewaysScroll = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

  for (const [index, viewport] of VIEWPORTS.entries()) {
    it(`a merchant not yet approved shows its live keys and itself as waiting for approval, never active (${viewport.name})`, async () => {
      // As a self-service user's merchant is made with LIVE_KEYS=approval (the default).
      const merchant = await createMerchant(ctx.t.deps, {
        name: `Waiting ${viewport.name}`,
        qris: vectors.vectors[index + 1]!.static,
        liveApproved: false,
      });
      const email = `waiting-${viewport.name}@shop.test`;
      await addMerchantUser(ctx.t.deps, [merchant.id], email);
      const page = await loggedIn(ctx.browser, ctx.base, viewport, email);
      // A user with a merchant is past the first steps.
      expect(await page.getByRole('heading', { name: 'Your first steps' }).count()).toBe(0);

      await page.goto(`${ctx.base}/dashboard/keys`);
      const keys: Record<string, string> = {};
      for (const mode of ['test', 'live']) {
        await page.getByLabel('Mode').selectOption(mode);
        await page.getByRole('button', { name: 'Create key' }).click();
        keys[mode] = (await page.locator('#new-key').textContent())!.trim();
      }
      await page.goto(`${ctx.base}/dashboard/keys`);
      const liveRow = page.getByRole('row', { name: new RegExp(keys.live!.slice(0, 12)) });
      const testRow = page.getByRole('row', { name: new RegExp(keys.test!.slice(0, 12)) });
      await expect.poll(() => liveRow.textContent()).toContain('waiting for approval');
      expect(await liveRow.textContent()).not.toContain('active');
      expect(await testRow.textContent()).toContain('active');
      expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(SHOTS, `portal-keys-waiting-${viewport.name}.png`), fullPage: true });
      // What the page says is what the API does.
      const live = await fetch(`${ctx.base}${CQRIS}?amount=10000`, { headers: { 'x-api-key': keys.live! } });
      expect(live.status).toBe(403);
      expect(((await live.json()) as { error: { code: string } }).error.code).toBe('live_not_approved');

      // The merchant's state, in its list and on its page.
      await openSection(page, 'Merchants');
      const row = page.getByRole('row', { name: new RegExp(`Waiting ${viewport.name}`) });
      expect(await row.textContent()).toContain('waiting for approval');
      expect(await row.textContent()).not.toContain('active');
      await row.getByRole('link', { name: `Waiting ${viewport.name}` }).click();
      await page.getByRole('heading', { name: `Waiting ${viewport.name}` }).waitFor();
      expect(
        await page
          .getByText("Its live keys wait for an operator's approval; its test keys work meanwhile.")
          .isVisible(),
      ).toBe(true);

      // In Bahasa Indonesia too.
      const id = await ctx.browser.newPage({ viewport, locale: 'id-ID' });
      await id.context().addCookies(await page.context().cookies());
      await id.goto(`${ctx.base}/dashboard/keys`);
      expect(await id.getByRole('row', { name: new RegExp(keys.live!.slice(0, 12)) }).textContent()).toContain(
        'menunggu persetujuan',
      );
      await id.close();
      await page.close();
    });
  }

  for (const [index, viewport] of VIEWPORTS.entries()) {
    it(`adding a merchant from its QRIS, the name left empty is the name the QRIS carries (${viewport.name})`, async () => {
      const email = `adds-${viewport.name}@shop.test`;
      await addNewcomer(email);
      const page = await loggedIn(ctx.browser, ctx.base, viewport, email);
      await page.goto(`${ctx.base}/dashboard/merchants`);
      await page.getByRole('link', { name: 'Add merchant' }).click();
      const name = page.getByLabel('Name', { exact: true });
      expect(await name.evaluate((input) => (input as HTMLInputElement).required)).toBe(false);
      expect(await page.getByText('Left empty, it is the name in the QRIS.').isVisible()).toBe(true);

      const qris = qrisOf(`WARUNG BARU ${viewport.name.toUpperCase()}`, `ID10200000009${index}7`);
      const decoded = parseMerchantQris(qris).merchantName;
      await page
        .getByLabel('QRIS image')
        .setInputFiles({ name: 'qris.png', mimeType: 'image/png', buffer: await renderCleanPng(qris) });
      await page.getByRole('button', { name: 'Preview' }).click();
      await page.getByRole('heading', { name: 'Is this the right merchant?' }).waitFor();
      // The preview names it, first in its list, by the QRIS's own name.
      expect(await page.locator('dl.fields dd').first().textContent()).toBe(decoded);
      expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(0);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText(`Merchant ${decoded} added.`).waitFor();
      expect(
        await page
          .getByRole('row', { name: new RegExp(decoded) })
          .getByRole('link', { name: decoded })
          .isVisible(),
      ).toBe(true);
      await page.close();
    });
  }

  for (const viewport of VIEWPORTS) {
    it(`on an open gateway the login form offers sign-up, and says nothing of an operator's account (${viewport.name})`, async () => {
      for (const [locale, signUp, operator] of [
        ['en-US', 'No account yet? Sign up', 'operator made for you'],
        ['id-ID', 'Belum punya akun? Daftar', 'dibuat operator'],
      ] as const) {
        const page = await ctx.browser.newPage({ viewport, locale });
        await page.goto(`${ctx.base}/dashboard`);
        const link = page.getByRole('link', { name: signUp });
        expect(await link.isVisible(), locale).toBe(true);
        expect(await page.getByText(operator).count(), locale).toBe(0);
        await link.click();
        await page.waitForURL(/\/dashboard\/signup$/);
        await page.close();
      }
    });
  }

  for (const viewport of VIEWPORTS) {
    it(`a newcomer with no merchant finds a first-step guide on the overview, each step a link (${viewport.name})`, async () => {
      const email = `first-${viewport.name}@shop.test`;
      await addNewcomer(email);
      const page = await loggedIn(ctx.browser, ctx.base, viewport, email);
      const guide = page.getByRole('region', { name: 'Your first steps' });
      await guide.waitFor();
      const steps = guide.getByRole('listitem');
      expect(await steps.count()).toBe(3);
      const links = [
        ['Add your merchant from a photo of its QRIS sticker', '/dashboard/merchants/new'],
        ['Make a test key', '/dashboard/keys'],
        ['Try a payment', '/docs'],
      ] as const;
      for (const [index, [name, href]] of links.entries()) {
        const link = steps.nth(index).getByRole('link', { name });
        expect(await link.getAttribute('href'), name).toBe(href);
        expect((await page.request.get(`${ctx.base}${href}`)).status(), href).toBe(200);
      }
      expect(await noSidewaysScroll(page)).toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(SHOTS, `portal-first-steps-${viewport.name}.png`), fullPage: true });
      await guide.getByRole('link', { name: links[0][0] }).click();
      await page.getByLabel('QRIS image').waitFor();
      await page.close();
    });
  }
});
