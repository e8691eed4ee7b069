#!/usr/bin/env node
// Entry point for `npm start`, `npm run cli` and the installed `qris-gateway` command. It compiles the
// TypeScript sources first (scripts/build.mjs, which also copies src/web/assets/) when dist/ is missing
// or older than any file under src/, browser files included, so a fresh clone needs only
// `npm install && npm start`.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';

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

// Several processes may start at once (instances, a CLI call beside a server): one compiles while the
// others wait for it, then find dist/ fresh.
function withBuildLock(fn) {
  const lock = join(root, 'dist', '.build-lock');
  mkdirSync(join(root, 'dist'), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      // A lock older than the deadline is a crashed build's: take it over. The holder may have removed
      // it between the mkdir and this look: then simply try again.
      let age = 0;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch (statErr) {
        if (statErr.code === 'ENOENT') continue;
        throw statErr;
      }
      if (age > 180_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error('timed out waiting for another process to finish building');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

if (needsBuild()) {
  const failed = withBuildLock(() => {
    if (!needsBuild()) return null;
    // The stamp carries the time the compile started, so an edit made during it still counts as newer.
    const started = new Date();
    process.stderr.write('qris-gateway: compiling TypeScript (first run or sources changed)...\n');
    const result = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
    if (result.status !== 0) return result.status ?? 1;
    const stamp = join(root, 'dist', '.build-stamp');
    writeFileSync(stamp, started.toISOString());
    utimesSync(stamp, started, started);
    return null;
  });
  if (failed !== null) {
    process.stderr.write('qris-gateway: build failed\n');
    process.exit(failed);
  }
}

await import(pathToFileURL(entry).href);
