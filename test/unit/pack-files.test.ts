// What `npm pack` puts in the tarball (package.json's `files`), checked without building: npm's own file
// list (`npm pack --dry-run --ignore-scripts`) of a folder holding this package.json and one file of each
// kind the checkout has, dist/ included whether or not this checkout has built it. The real tarball,
// built and installed, is test/deploy/pack.test.ts (`npm run test:deploy`).
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const folder = mkdtempSync(join(tmpdir(), 'qg-pack-files-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

it('npm pack takes bin/, dist/ without source maps, the systemd unit and its Caddyfile, README and package.json; no src/, test/, docs/ or scripts/', async () => {
  copyFileSync(join(root, 'package.json'), join(folder, 'package.json'));
  const files = [
    'README.md',
    'bin/qris-gateway.mjs',
    'dist/cli/bin.js',
    'dist/cli/bin.js.map',
    'dist/cli/bin.d.ts',
    'dist/.build-stamp',
    'dist/web/assets/checkout.css',
    'src/cli/bin.ts',
    'src/web/assets/checkout.css',
    'test/unit/pack-files.test.ts',
    'test/deploy/pack.test.ts',
    'docs/screenshots/console.png',
    'scripts/build.mjs',
    'examples/node/create.ts',
    'packages/client/package.json',
    'deploy/qris-gateway.service',
    'deploy/systemd/Caddyfile',
    'deploy/Caddyfile',
    'deploy/test/stand-in-images.sh',
    'tsconfig.json',
    'vitest.config.ts',
  ];
  for (const file of files) {
    mkdirSync(dirname(join(folder, file)), { recursive: true });
    writeFileSync(join(folder, file), file.endsWith('.json') ? '{}' : 'x');
  }
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: folder,
    env: { ...process.env, npm_config_loglevel: 'silent' },
  });
  const [result] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>;
  const packed = result!.files.map((f) => f.path).sort();
  expect(packed).toEqual([
    'README.md',
    'bin/qris-gateway.mjs',
    'deploy/qris-gateway.service',
    'deploy/systemd/Caddyfile',
    'dist/cli/bin.d.ts',
    'dist/cli/bin.js',
    'dist/web/assets/checkout.css',
    'package.json',
  ]);
}, 20_000);
