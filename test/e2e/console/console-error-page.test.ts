// Issue 37, section 5, in a real browser at a phone's and a desktop's size: with the database out of
// reach a logged-in owner's reload shows the error page in the chosen language with "Coba lagi"; once the
// database is back, "Coba lagi" opens the same page, still logged in.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBrowserApp } from '../../helpers/browser.js';
import { addMerchantUser } from '../../helpers/console.js';
import { loggedIn, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { sessionOutage } from '../../helpers/session-outage.js';

// The session's read fails as the storage layer fails when the database is unreachable (see
// test/integration/console/console-error-page.test.ts).

describe('the console error page in a real browser, the database out of reach', () => {
  const ctx = useBrowserApp({ CONSOLE: 'true' });
  let outage = { on: false };

  beforeAll(async () => {
    await addMerchantUser(ctx.t.deps, [ctx.t.merchant.id], 'owner@shop.test');
    outage = sessionOutage(ctx.t.deps.db, 'file');
  });

  for (const size of VIEWPORTS) {
    it(`a reload says so in Indonesian and "Coba lagi" brings the page back (${size.name})`, async () => {
      const page = await loggedIn(ctx.browser, ctx.base, size, 'owner@shop.test');
      try {
        await page.goto(`${ctx.base}/dashboard/lang/id?back=/dashboard/transactions`);
        await page.getByRole('heading', { name: 'Transaksi', level: 1 }).waitFor();
        outage.on = true;
        await page.reload();
        await page.getByRole('heading', { name: 'Sementara tidak tersedia', level: 1 }).waitFor();
        expect(await page.getByText('Kembali ke halaman masuk').count()).toBe(0);
        const retry = page.getByRole('link', { name: 'Coba lagi', exact: true });
        expect(await retry.isVisible()).toBe(true);
        await page.screenshot({ path: join(SHOTS, `console-unavailable-${size.name}.png`), fullPage: true });
        outage.on = false;
        await retry.click();
        await page.getByRole('heading', { name: 'Transaksi', level: 1 }).waitFor();
        expect(new URL(page.url()).pathname).toBe('/dashboard/transactions');
      } finally {
        outage.on = false;
        await page.close();
      }
    }, 120_000);
  }
});
