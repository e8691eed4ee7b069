// issue 26, item 9: the console on a phone. Every page the navigation lists (read from the navigation
// itself, so a page added tomorrow is walked too) is opened at 390x844 with a row in each of its tables:
// nothing sticks out sideways, the heading is near the top (the navigation is one row, a Menu), and every
// link and button in a table is on screen and clickable. At 1280x800 the navigation stays one row.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../../helpers/browser.js';
import { loggedIn, SHOTS, VIEWPORTS } from '../../helpers/console-browser.js';
import { startSeededWorld, type SeededWorld } from '../../helpers/seeded-world.js';

const [PHONE, DESKTOP] = VIEWPORTS;

describe('the console on a phone and a desktop', () => {
  let world: SeededWorld;
  let browser: Browser;
  let base = '';

  beforeAll(async () => {
    // Two merchants with a key, a transaction, a payment, a webhook endpoint, a source and a link each, a
    // user each and an audit trail; B awaits approval (the overview's queue).
    world = await startSeededWorld({ PUBLIC_BASE_URL: 'http://127.0.0.1' });
    // One endpoint failing, for the overview's table of them.
    await world.t.deps.db
      .updateTable('webhook_endpoints')
      .set({ status: 'failing', consecutive_failures: 4 })
      .where('id', '=', world.merchants.B.ids.endpointId)
      .execute();
    base = await world.t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  const menuButton = (page: Page) => page.getByRole('banner').getByText('Menu', { exact: true });
  const sections = (page: Page) => page.getByRole('navigation', { name: 'Console sections' });

  /** What must hold on any console page at any size. */
  async function checkPage(page: Page, path: string): Promise<void> {
    const width = page.viewportSize()!.width;
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${path} sticks out sideways`).toBeLessThanOrEqual(0);
    const heading = await page.getByRole('heading', { level: 1 }).first().boundingBox();
    expect(heading, `${path} has no visible main heading`).not.toBeNull();
    // On a phone, the header's one row and the page's own top; a desktop's two rows (header, sections) as before.
    expect(heading!.y, `${path}'s heading starts too low`).toBeLessThan(width <= 600 ? 120 : 160);

    const tables = page.locator('main table');
    // Every page but the sources' (cards, one per source) and the soundbox (a board read across the
    // counter, its payments a list) has a table, and the world gave each a row.
    if (path !== '/dashboard/sources' && path !== '/dashboard/soundbox')
      expect(await tables.locator('tbody tr').count(), `${path} shows no table row`).toBeGreaterThan(0);
    // Each cell is labelled by its column's header (what a phone shows beside it), or holds only actions.
    const mislabelled = await page.evaluate(() =>
      Array.from(document.querySelectorAll('main table')).flatMap((table) => {
        const heads = Array.from(table.querySelectorAll('thead th')).map((th) => th.textContent!.trim());
        return Array.from(table.querySelectorAll('tbody tr')).flatMap((tr) =>
          Array.from(tr.children).flatMap((td, i) => {
            const label = td.getAttribute('data-label');
            if (label === heads[i]) return [];
            // An actions cell (Revoke, Approve, Manage) needs no label: its buttons and links say what they do.
            const squeeze = (text: string | null) => (text ?? '').replace(/\s+/g, '');
            const actionsText = Array.from(td.querySelectorAll('a, button'))
              .map((el) => squeeze(el.textContent))
              .join('');
            return label === '' && squeeze(td.textContent) === actionsText
              ? []
              : [`column ${i + 1} (${heads[i]}): data-label ${JSON.stringify(label)}`];
          }),
        );
      }),
    );
    expect(mislabelled, path).toEqual([]);

    const actions = tables.locator('a:visible, button:visible');
    const count = await actions.count();
    for (let i = 0; i < count; i++) {
      const action = actions.nth(i);
      const name = `${path}: "${(await action.textContent())?.trim()}"`;
      // trial: the checks a click makes (visible, still, nothing on top of it) without clicking.
      await action.click({ trial: true, timeout: 5_000 });
      const box = (await action.boundingBox())!;
      expect(box.x, name).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, name).toBeLessThanOrEqual(width);
    }
  }

  // Every section at this size: about 14 s on an idle machine, past the default 30 s on a loaded CI host.
  it('on a phone: one header row with a Menu, tables as labelled cards, every action on screen', async () => {
    const page = await loggedIn(browser, base, PHONE, 'ops@world.test');
    // Closed, the Menu hides the sections; the desktop's row of them is not shown at all.
    await expect(menuButton(page).isVisible()).resolves.toBe(true);
    await expect(sections(page).isVisible()).resolves.toBe(false);
    const header = (await page.getByRole('banner').boundingBox())!;
    await page.screenshot({ path: join(SHOTS, 'phone-header.png') });
    expect(header.height).toBeLessThanOrEqual(60);

    await menuButton(page).click();
    const links = sections(page).getByRole('link');
    await expect(links.first().isVisible()).resolves.toBe(true);
    const paths = await links.evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    expect(paths).toContain('/dashboard/keys');
    expect(paths).toContain('/dashboard/audit');
    await expect(sections(page).getByRole('link', { name: 'Overview' }).getAttribute('aria-current')).resolves.toBe(
      'page',
    );
    await page.screenshot({ path: join(SHOTS, 'phone-menu-open.png') });

    // Following a link from the menu: the page opens with the menu closed and that link marked.
    await sections(page).getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await expect(sections(page).isVisible()).resolves.toBe(false);
    await menuButton(page).click();
    await expect(sections(page).getByRole('link', { name: 'API keys' }).getAttribute('aria-current')).resolves.toBe(
      'page',
    );
    await expect(
      sections(page).getByRole('link', { name: 'Overview' }).getAttribute('aria-current'),
    ).resolves.toBeNull();
    // The account and logging out are in the menu too.
    await expect(page.getByRole('banner').getByRole('button', { name: 'Log out' }).isVisible()).resolves.toBe(true);

    for (const path of paths) {
      await page.goto(base + path);
      await checkPage(page, path);
      const name = path.split('/')[2] ?? 'overview';
      if (['overview', 'keys', 'transactions', 'merchants'].includes(name)) {
        await page.screenshot({ path: join(SHOTS, `phone-${name}.png`), fullPage: true });
        await menuButton(page).click();
        await page.screenshot({ path: join(SHOTS, `phone-${name}-menu.png`) });
        await menuButton(page).click();
      }
    }
    await page.close();
  }, 90_000);

  it('on a phone: the Menu opens from the keyboard, and without any script', async () => {
    const page = await loggedIn(browser, base, PHONE, 'ops@world.test');
    await menuButton(page).focus();
    await page.keyboard.press('Enter');
    await expect(sections(page).isVisible()).resolves.toBe(true);
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Overview');
    // Escape (console.js) closes it and gives the focus back to the Menu.
    await page.keyboard.press('Escape');
    await expect(sections(page).isVisible()).resolves.toBe(false);
    await expect(page.evaluate(() => document.activeElement?.tagName)).resolves.toBe('SUMMARY');
    await page.close();

    const noScript = await browser.newContext({ viewport: PHONE, javaScriptEnabled: false });
    const bare = await noScript.newPage();
    await bare.goto(`${base}/dashboard`);
    await bare.getByLabel('Email').fill('ops@world.test');
    await bare.getByLabel('Password').fill('correct horse battery');
    await bare.getByRole('button', { name: 'Log in' }).click();
    await bare.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
    await menuButton(bare).click();
    await sections(bare).getByRole('link', { name: 'Merchants' }).click();
    await bare.getByRole('heading', { name: 'Merchants', level: 1 }).waitFor();
    await noScript.close();
  });

  // Each role sees its own sections, and Indonesian words are longer than English ones: every viewer's
  // row fits in both languages (the console's language is chosen at /dashboard/lang/{lang}).
  for (const email of ['ops@world.test', 'user@alfa.test']) {
    for (const lang of ['en', 'id'] as const) {
      it(`on a desktop the sections of ${email} fit one row in ${lang === 'en' ? 'English' : 'Bahasa Indonesia'}`, async () => {
        const page = await loggedIn(browser, base, DESKTOP, email);
        await page.goto(`${base}/dashboard/lang/${lang}?back=/dashboard`);
        const nav = page.getByRole('navigation', { name: lang === 'en' ? 'Console sections' : 'Bagian konsol' });
        await nav.waitFor();
        const links = nav.getByRole('link');
        expect(await links.count()).toBeGreaterThan(5);
        const tops = new Set(
          (await links.evaluateAll((as) => as.map((a) => a.getBoundingClientRect().top))).map(Math.round),
        );
        expect(tops.size, `the sections of ${email} wrap onto more than one row in ${lang}`).toBe(1);
        await page.screenshot({ path: join(SHOTS, `desktop-nav-${email.split('@')[0]}-${lang}.png`) });
        await page.close();
      });
    }
  }

  // Every section at this size: about 14 s on an idle machine, past the default 30 s on a loaded CI host.
  it('on a desktop: the sections in one row under the header, no Menu, tables as tables', async () => {
    const page = await loggedIn(browser, base, DESKTOP, 'ops@world.test');
    await expect(menuButton(page).isVisible()).resolves.toBe(false);
    const links = sections(page).getByRole('link');
    const paths = await links.evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    const tops = new Set(
      (await links.evaluateAll((as) => as.map((a) => a.getBoundingClientRect().top))).map(Math.round),
    );
    expect(tops.size, 'the sections wrap onto more than one row').toBe(1);
    expect((await sections(page).boundingBox())!.height).toBeLessThanOrEqual(56);
    for (const path of paths) {
      await page.goto(base + path);
      await checkPage(page, path);
      // A table still lays out as one: its header row is shown (the overview's one table, the chart's
      // figures, is in a closed <details>; its approval queue is a page of its own now).
      if (!['/dashboard', '/dashboard/sources', '/dashboard/soundbox'].includes(path))
        expect(await page.locator('main table thead').first().isVisible(), path).toBe(true);
      const name = path.split('/')[2] ?? 'overview';
      if (['overview', 'keys', 'transactions', 'merchants'].includes(name))
        await page.screenshot({ path: join(SHOTS, `desktop-${name}.png`) });
    }
    await page.close();
  }, 90_000);
});
