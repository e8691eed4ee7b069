#!/usr/bin/env node
// @ts-check
// `npm run screenshots`: runs the console's, the portal's, the payment links', the payer's, the point of sale's and the soundbox's browser tests on SQLite with their
// screenshots written to docs/screenshots/, the pictures the README shows. They are made by the tests,
// so they show what the tests checked.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'docs', 'screenshots');
mkdirSync(out, { recursive: true });
const vitest = createRequire(import.meta.url).resolve('vitest/vitest.mjs');
const result = spawnSync(
  process.execPath,
  [vitest, 'run', 'test/e2e/console', 'test/e2e/payment-links', 'test/e2e/portal', 'test/e2e/checkout-payer', 'test/e2e/pos', 'test/e2e/soundbox'],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, QG_TEST_DATABASE: 'sqlite', QG_SCREENSHOTS: out },
  },
);
process.exit(result.status ?? 1);
