// One way for browser tests to start Chromium: Debian's when the machine has it (CI installs it), else
// the build shipped inside the @sparticuz/chromium devDependency, so `npm install && npm test` passes on
// a machine with only Node.js and npm. No test is skipped for lack of a browser.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { createTestApp, type TestApp } from './context.js';

// Keeps Chromium off the closed network: without these it keeps trying (and failing) to reach Google.
const QUIET = ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const DEBIAN = '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  const chosen = process.env.CHROMIUM_PATH ?? (existsSync(DEBIAN) ? DEBIAN : null);
  if (chosen !== null) {
    return chromium.launch({ executablePath: chosen, args: ['--no-sandbox', ...QUIET], headless: true });
  }
  // Unpacked to the temp folder on first use (a few seconds), reused afterwards.
  // Its own argument list is made for one-shot serverless runs (--single-process ends the browser with
  // its first page, and it turns web security off); only the flags this build needs to start are taken.
  const packaged = (await import('@sparticuz/chromium')).default;
  packaged.setGraphicsMode = false;
  const args = ['--no-sandbox', '--no-zygote', '--disable-setuid-sandbox', '--in-process-gpu', '--font-render-hinting=none', ...QUIET];
  return chromium.launch({ executablePath: await packaged.executablePath(), args, headless: true });
}

/**
 * For a describe block of browser tests: a gateway listening on loopback (createTestApp with `env`) and
 * one browser, both started before its tests and closed after them.
 */
export function useBrowserApp(env: Record<string, string> = {}): { readonly t: TestApp; readonly browser: Browser; readonly base: string } {
  let t: TestApp | undefined;
  let browser: Browser | undefined;
  let base = '';
  beforeAll(async () => {
    t = await createTestApp({ PUBLIC_BASE_URL: 'http://127.0.0.1', ...env });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  return {
    get t() {
      return t!;
    },
    get browser() {
      return browser!;
    },
    get base() {
      return base;
    },
  };
}
