#!/usr/bin/env node
// Entry point for `npm start`, `npm run cli` and the installed `qris-gateway` command. In a checkout (src/,
// scripts/build.mjs and the TypeScript compiler are all there) it first builds dist/ when dist/ is missing
// or older than any file under src/, browser files included, so a fresh clone needs only
// `npm install && npm start`; `npm run build` ahead of a restart makes that start immediate. Where there is
// nothing to compile from (an installed package, an image that ships dist/), it never compiles: it starts
// from dist/, or says that dist/ is missing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'cli', 'bin.js');
const buildScript = join(root, 'scripts', 'build.mjs');

function hasCompiler() {
  try {
    createRequire(import.meta.url).resolve('typescript/bin/tsc');
    return true;
  } catch {
    return false;
  }
}

const canBuild = existsSync(join(root, 'src')) && existsSync(buildScript) && hasCompiler();
if (canBuild) {
  // Loaded only here: a copy without scripts/ never needs it.
  const { distIsFresh } = await import(pathToFileURL(join(root, 'scripts', 'build-steps.mjs')).href);
  if (!distIsFresh(root)) {
    process.stderr.write(
      'qris-gateway: dist/ is missing or older than src/: building it first (`npm run build` does this ahead of a restart)\n',
    );
    // build.mjs takes the build lock: of several processes starting at once, one builds and the others
    // wait for it, then find dist/ fresh (--if-stale) and build nothing.
    const result = spawnSync(process.execPath, [buildScript, '--if-stale'], { stdio: 'inherit' });
    if (result.status !== 0) process.exit(result.status ?? 1);
  }
}

if (!existsSync(entry)) {
  process.stderr.write(
    `qris-gateway: ${join(root, 'dist')} is missing, and it cannot be built here (${canBuild ? 'the build made none' : 'no src/, scripts/build.mjs or TypeScript compiler'}): run \`npm run build\` in a checkout of the sources and ship its dist/ folder\n`,
  );
  process.exit(1);
}

await import(pathToFileURL(entry).href);
