import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/context.js';

const source = (file: string) => readFileSync(new URL(`../../../src/web/assets/${file}`, import.meta.url));

describe('checkout page files', () => {
  let t: TestApp;
  let page: string;

  beforeAll(async () => {
    t = await createTestApp();
    const created = await t.app.inject({
      url: '/api/payment-gateway/cqris?amount=20000',
      headers: { 'x-api-key': t.testKey },
    });
    const res = await t.app.inject({ url: `/checkout/${created.json().data.trxid}` });
    expect(res.statusCode).toBe(200);
    // The page itself stays uncached: it shows a live status.
    expect(res.headers['cache-control']).toBe('no-store');
    page = res.body;
  });
  afterAll(async () => t.close());

  it('serves the script and the styles at content-hashed URLs the page names, cacheable for a year', async () => {
    for (const [file, type] of [
      ['checkout.js', 'text/javascript; charset=utf-8'],
      ['checkout.css', 'text/css; charset=utf-8'],
    ] as const) {
      const [name, ext] = file.split('.') as [string, string];
      const url = new RegExp(`"(/checkout/assets/${name}\\.([0-9a-f]{12})\\.${ext})"`).exec(page);
      expect(url, file).not.toBeNull();
      const res = await t.app.inject({ url: url![1]! });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe(type);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.rawPayload.equals(source(file))).toBe(true);
      // Some hash of the content; a different one answers 404, as does the plain name.
      const wrong = url![1]!.replace(url![2]!, 'f'.repeat(12));
      expect((await t.app.inject({ url: wrong })).statusCode).toBe(404);
      expect((await t.app.inject({ url: `/checkout/assets/${file}` })).statusCode).toBe(404);
    }
  });

  it("links the payer's shared sheet before its own, the same URL the payment-link pages link", async () => {
    const links = [...page.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1]!);
    expect(links).toHaveLength(2);
    expect(links[0]).toMatch(/^\/checkout\/assets\/payer\.[0-9a-f]{12}\.css$/);
    expect(links[1]).toMatch(/^\/checkout\/assets\/checkout\.[0-9a-f]{12}\.css$/);
    const res = await t.app.inject({ url: links[0]! });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.rawPayload.equals(source('payer.css'))).toBe(true);

    await t.deps.db
      .updateTable('merchants')
      .set({ payment_link_handle: 'warung-assets' })
      .where('id', '=', t.merchant.id)
      .execute();
    const form = await t.app.inject({ url: '/pay/warung-assets' });
    expect(form.statusCode).toBe(200);
    const payLinks = [...form.body.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1]!);
    expect(payLinks[0]).toBe(links[0]);
    expect(payLinks[1]).toMatch(/^\/pay\/assets\/pay-link\.[0-9a-f]{12}\.css$/);
  });

  it('serves the icon at its plain URL, cached for a day', async () => {
    expect(page).toContain('<link rel="icon" type="image/svg+xml" href="/checkout/assets/icon.svg">');
    const res = await t.app.inject({ url: '/checkout/assets/icon.svg' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    expect(res.rawPayload.equals(source('icon.svg'))).toBe(true);
  });

  it('answers /favicon.ico with the icon, and the console pages link the icon at an address of their own', async () => {
    const favicon = await t.app.inject({ url: '/favicon.ico' });
    expect(favicon.statusCode).toBe(200);
    expect(favicon.headers['content-type']).toBe('image/svg+xml');
    expect(favicon.rawPayload.equals(source('icon.svg'))).toBe(true);
    // The login form (the console's one page for a visitor) names its icon; the address serves it.
    const login = await t.app.inject({ url: '/dashboard' });
    const icon = /<link rel="icon" type="image\/svg\+xml" href="(\/dashboard\/assets\/icon\.[0-9a-f]{12}\.svg)">/.exec(
      login.body,
    );
    expect(icon).not.toBeNull();
    const res = await t.app.inject({ url: icon![1]! });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.rawPayload.equals(source('icon.svg'))).toBe(true);
  });

  it('keeps the other responses uncached, a 404 under the assets folder included', async () => {
    const missing = await t.app.inject({ url: '/checkout/assets/other.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['cache-control']).toBe('no-store');
  });
});
