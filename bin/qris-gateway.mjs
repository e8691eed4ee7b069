#!/usr/bin/env node
// Entry point for `npm start`, `npm run cli` and the installed `qris-gateway` command. It compiles the
// TypeScript sources first when dist/ is missing or older than any source file, so a fresh clone needs
// only `npm install && npm start`.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'cli', 'bin.js');
const srcDir = join(root, 'src');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function needsBuild() {
  if (!existsSync(srcDir)) return false;
  if (!existsSync(entry)) return true;
  const stamp = join(root, 'dist', '.build-stamp');
  if (!existsSync(stamp)) return true;
  return newestMtime(srcDir) > statSync(stamp).mtimeMs;
}

if (needsBuild()) {
  process.stderr.write('qris-gateway: compiling TypeScript (first run or sources changed)...\n');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write('qris-gateway: build failed\n');
    process.exit(result.status ?? 1);
  }
  const { writeFileSync } = await import('node:fs');
  writeFileSync(join(root, 'dist', '.build-stamp'), new Date().toISOString());
}

await import(pathToFileURL(entry).href);
