// issue 36, section 1: a merchant's owner adds a phone source in a real Chromium, at a phone's size and a
// desktop's, reads the "Connect a phone" card (URL, token, secret, the forwarder's template, the token's
// warning), and after the phone posts, sees the notifications received with what each became.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBrowserApp } from '../../helpers/browser.js';
import { addMerchantUser } from '../../helpers/console.js';
import { loggedIn, openSection, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';

describe('the phone source in the console, in a real browser', () => {
  const ctx = useBrowserApp();
  beforeAll(async () => {
    await addMerchantUser(ctx.t.deps, [ctx.t.merchant.id], 'phone-owner@warung.test');
  });
  afterAll(() => undefined);

  for (const size of VIEWPORTS) {
    it(`at ${size.name} size: Connect a phone, then the notifications received`, async () => {
      const page = await loggedIn(ctx.browser, ctx.base, size, 'phone-owner@warung.test');
      page.setDefaultTimeout(8000);
      try {
        await openSection(page, 'Sources');
        const form = page.getByRole('region', { name: 'Add source' });
        await form.getByLabel('Type').selectOption({ label: 'Phone notifications' });
        await form.getByRole('button', { name: 'Add source' }).click();

        const card = page.getByRole('region', { name: 'Connect a phone' });
        await card.waitFor();
        const url = (await card.locator('#phone-url').innerText()).trim();
        const token = (await card.locator('#phone-token').innerText()).trim();
        expect(url).toMatch(/\/api\/payment-sources\/src_[0-9A-Za-z]+\/events$/);
        expect(token).toMatch(/^ptk_/);
        expect(
          await card.getByText('Anyone who learns the token can report payments', { exact: false }).isVisible(),
        ).toBe(true);
        expect(await card.getByText('{"from":"%from%","text":"%text%","timestamp":"%sentStamp%"}').isVisible()).toBe(
          true,
        );
        expect(await card.getByRole('heading', { name: /SMS to URL Forwarder/ }).isVisible()).toBe(true);
        expect(await card.getByRole('heading', { name: /MacroDroid, Tasker/ }).isVisible()).toBe(true);

        // The phone posts: a payment nobody is waiting for, and a cashback offer.
        const path = new URL(url).pathname;
        for (const text of [
          'Kamu berhasil menerima Rp12345 via Gopay ke akunmu. Cek yuk!',
          'Kamu berhasil menerima cashback Rp5.000! Cek yuk!',
        ]) {
          const res = await fetch(`${ctx.base}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: JSON.stringify({ title: 'DANA', text, package: 'id.dana' }),
          });
          expect(res.status).toBe(200);
        }
        // A fresh GET of the page (a reload would send the add form again).
        await page.goto(`${ctx.base}/dashboard/sources`);
        const id = /src_[0-9A-Za-z]+/.exec(path)![0];
        const sourceCard = page.locator('section.source', { has: page.locator(`#source-${id}`) });
        const received = sourceCard.getByRole('table', { name: 'Notifications received' });
        await received.waitFor();
        expect(await page.content()).not.toContain(token);
        expect(await received.getByText('ignored: an offer or cashback, not a payment').isVisible()).toBe(true);
        expect(await received.getByText(/^payment, not matched: /).isVisible()).toBe(true);
        expect(
          await received.getByText('Kamu berhasil menerima Rp12345 via Gopay ke akunmu. Cek yuk!').isVisible(),
        ).toBe(true);
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        await received.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(SHOTS, `phone-source-${size.name}.png`), fullPage: true });
      } finally {
        await page.close();
      }
    });
  }
});
