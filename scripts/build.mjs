// `npm run build`, and what bin/qris-gateway.mjs runs when dist/ is stale: compiles the TypeScript, then
// copies the browser files (src/web/assets/: served as they are, so tsc leaves them alone) beside the
// compiled module that serves them.
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (result.status !== 0) process.exit(result.status ?? 1);

const assets = join(root, 'dist', 'web', 'assets');
// Replaced, not merged: a file removed from src/ must not linger in dist/.
rmSync(assets, { recursive: true, force: true });
cpSync(join(root, 'src', 'web', 'assets'), assets, { recursive: true });
