// issue 26, item 21: the API docs (/docs, Swagger UI) on a phone lay out at the phone's width, not at the
// 980 px a page without a viewport tag gets, and nothing in them sticks out sideways.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useBrowserApp } from '../../helpers/browser.js';
import { SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';

describe('the API docs page', () => {
  const ctx = useBrowserApp();

  it('has one viewport tag, and only its HTML is changed', async () => {
    const page = await ctx.t.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.body.match(/<meta name="viewport" content="width=device-width, initial-scale=1">/g)).toHaveLength(1);
    const spec = await ctx.t.app.inject({ method: 'GET', url: '/docs/json' });
    expect(spec.statusCode).toBe(200);
    expect(spec.json()).toMatchObject({ info: { title: 'qris-gateway' } });
  });

  for (const viewport of VIEWPORTS) {
    it(`lays out at the device's width (${viewport.name})`, async () => {
      // isMobile: as a phone's browser does, lay a page without a viewport tag out at 980 px.
      const page = await ctx.browser.newPage({
        viewport,
        isMobile: viewport.name === 'phone',
        hasTouch: viewport.name === 'phone',
      });
      await page.goto(`${ctx.base}/docs`);
      await page
        .getByRole('heading', { name: /qris-gateway/ })
        .first()
        .waitFor();
      const layout = await page.evaluate(() => ({
        width: document.documentElement.clientWidth,
        scroll: document.documentElement.scrollWidth,
      }));
      expect(layout.width).toBe(viewport.width);
      expect(layout.scroll).toBeLessThanOrEqual(viewport.width);
      await page.screenshot({ path: join(SHOTS, `docs-${viewport.name}.png`) });
      await page.close();
    });
  }
});
