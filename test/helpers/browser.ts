// One way for browser tests to start Chromium: Debian's when the machine has it (CI installs it), else
// the build shipped inside the @sparticuz/chromium devDependency, so `npm install && npm test` passes on
// a machine with only Node.js and npm. No test is skipped for lack of a browser.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { createTestApp, type TestApp } from './context.js';

// Keeps Chromium off the closed network: without these it keeps trying (and failing) to reach Google.
const QUIET = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const DEBIAN = '/usr/bin/chromium';

/** `extra`: more Chromium switches (the point of sale's sound test asks for a phone's autoplay policy). */
export async function launchBrowser(extra: readonly string[] = []): Promise<Browser> {
  const chosen = process.env.CHROMIUM_PATH ?? (existsSync(DEBIAN) ? DEBIAN : null);
  if (chosen !== null) {
    return chromium.launch({ executablePath: chosen, args: ['--no-sandbox', ...QUIET, ...extra], headless: true });
  }
  // Unpacked to the temp folder on first use (a few seconds), reused afterwards.
  // Its own argument list is made for one-shot serverless runs (--single-process ends the browser with
  // its first page, and it turns web security off); only the flags this build needs to start are taken.
  const packaged = (await import('@sparticuz/chromium')).default;
  packaged.setGraphicsMode = false;
  const args = [
    '--no-sandbox',
    '--no-zygote',
    '--disable-setuid-sandbox',
    '--in-process-gpu',
    '--font-render-hinting=none',
    ...QUIET,
    ...extra,
  ];
  return chromium.launch({ executablePath: await unpackedOnce(() => packaged.executablePath()), args, headless: true });
}

/**
 * The package unpacks into the temp folder and takes any file already there as complete, so two test
 * processes starting at once could launch a binary the other is still writing (spawn ETXTBSY), and a run
 * killed mid-unpack would leave a broken one. Here one process at a time unpacks, under a lock directory,
 * and a marker written after the unpack tells the others it is complete.
 */
async function unpackedOnce(unpack: () => Promise<string>): Promise<string> {
  const ready = join(tmpdir(), 'qg-chromium.ready');
  const lock = join(tmpdir(), 'qg-chromium.lock');
  const deadline = Date.now() + 180_000;
  const unpacked = () => {
    const path = existsSync(ready) ? readFileSync(ready, 'utf8') : null;
    return path !== null && existsSync(path) ? path : null;
  };
  for (;;) {
    const done = unpacked();
    if (done !== null) return done;
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      // A lock left by a process that died mid-unpack is taken over after two minutes.
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`another process has held ${lock} for three minutes`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    const done = unpacked();
    if (done !== null) return done;
    rmSync(ready, { force: true });
    // Whatever an earlier, unmarked unpack left may be partial: removed, so the package unpacks afresh.
    for (const left of ['chromium', 'fonts', 'libGLESv2.so'])
      rmSync(join(tmpdir(), left), { recursive: true, force: true });
    const path = await unpack();
    writeFileSync(ready, path);
    return path;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * For a describe block of browser tests: a gateway listening on loopback (createTestApp with `env`) and
 * one browser, both started before its tests and closed after them.
 */
export function useBrowserApp(env: Record<string, string> = {}): {
  readonly t: TestApp;
  readonly browser: Browser;
  readonly base: string;
} {
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
