// Console browser tests: where screenshots go, the two sizes every page is tried at, and a login.
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { PASSWORD } from './console.js';

/** Where screenshots go: docs/screenshots for the docs (npm run screenshots), else a temp folder. */
export const SHOTS = process.env.QG_SCREENSHOTS ?? join(tmpdir(), 'qg-shots');
mkdirSync(SHOTS, { recursive: true });

export const VIEWPORTS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 800 },
] as const;

/** A new page at this size, logged in through the form as a person would. */
export async function loggedIn(
  browser: Browser,
  base: string,
  viewport: { width: number; height: number },
  email: string,
  password = PASSWORD,
): Promise<Page> {
  const page = await browser.newPage({ viewport });
  await page.goto(`${base}/dashboard`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return page;
}

/** On a phone, opens the header's Menu (the sections and the account); on a desktop they are shown already. */
export async function openMenu(page: Page): Promise<void> {
  const menu = page.getByRole('banner').getByText('Menu', { exact: true });
  if (await menu.isVisible()) await menu.click();
}

/** Opens a console section by its link in the navigation (on a phone, through the Menu). */
export async function openSection(page: Page, name: string): Promise<void> {
  await openMenu(page);
  await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name, exact: true }).click();
}
