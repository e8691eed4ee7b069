#!/usr/bin/env node
// @ts-check
// `npm run screenshots`: runs the console's, the portal's, the payment links', the payer's, the point of sale's and the soundbox's browser tests on SQLite with their
// screenshots written to docs/screenshots/, the pictures the docs show. They are made by the tests,
// so they show what the tests checked. The tests take more pictures than the docs show: after a run,
// the ones no page (README.md, docs/**/*.md) links to are removed again.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'docs', 'screenshots');
mkdirSync(out, { recursive: true });
const vitest = createRequire(import.meta.url).resolve('vitest/vitest.mjs');
const result = spawnSync(
  process.execPath,
  [
    vitest,
    'run',
    'test/e2e/console/console',
    'test/e2e/payer/payment-links',
    'test/e2e/console/portal',
    'test/e2e/payer/checkout-payer',
    'test/e2e/counter/pos',
    'test/e2e/counter/soundbox',
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, QG_TEST_DATABASE: 'sqlite', QG_SCREENSHOTS: out },
  },
);
if (result.status !== 0) process.exit(result.status ?? 1);

/** The file names of the pictures a page links to (`screenshots/x.png` from docs/, `docs/screenshots/x.png` from README). */
const pages = [
  join(root, 'README.md'),
  ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(root, 'docs', name)),
];
const shown = new Set(
  pages.flatMap((page) =>
    [...readFileSync(page, 'utf8').matchAll(/screenshots\/([A-Za-z0-9._-]+\.png)/g)].map((m) => m[1]),
  ),
);
const unshown = readdirSync(out).filter((name) => name.endsWith('.png') && !shown.has(name));
for (const name of unshown) rmSync(join(out, name));
process.stdout.write(`docs/screenshots: ${shown.size} pictures the docs show kept, ${unshown.length} others removed\n`);
