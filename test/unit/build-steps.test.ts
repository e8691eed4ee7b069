// issue 37 §8: building dist/ never leaves a gateway without one. A build compiles into dist.next/ and swaps
// it in whole (the replaced dist/ kept until the next build), a failed build leaves dist/ as it was, one
// build at a time under a lock, and it says what it is doing. The compile here is a fake one writing a
// file; the entry point, copied without src/ or a compiler, starts from dist/ and never compiles.
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildAndSwap, distIsFresh, progress, STAMP, withBuildLock } from '../../scripts/build-steps.mjs';
import { root as repo } from '../helpers/processes.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'qg-build-'));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'a.ts'), 'export {};\n');
});

afterEach(() => {
  vi.useRealTimers();
  rmSync(root, { recursive: true, force: true });
});

/** A fake compile: dist/cli/bin.js saying which build made it. */
const writes = (version: string) => (dir: string) => {
  mkdirSync(join(dir, 'cli'), { recursive: true });
  writeFileSync(join(dir, 'cli', 'bin.js'), version);
};

const setAside = () => readdirSync(root).filter((name) => name.startsWith('dist.old-'));

describe('buildAndSwap', () => {
  it('builds beside dist/, leaving it untouched until the build is complete, then swaps it in', async () => {
    await buildAndSwap(root, writes('one'));
    expect(readFileSync(join(root, 'dist', 'cli', 'bin.js'), 'utf8')).toBe('one');
    expect(distIsFresh(root)).toBe(true);

    await buildAndSwap(root, (dir) => {
      // Mid-build, a running gateway still finds the whole old dist/.
      expect(dir).toBe(join(root, 'dist.next'));
      writes('two')(dir);
      expect(readFileSync(join(root, 'dist', 'cli', 'bin.js'), 'utf8')).toBe('one');
    });
    expect(readFileSync(join(root, 'dist', 'cli', 'bin.js'), 'utf8')).toBe('two');
    expect(existsSync(join(root, 'dist.next'))).toBe(false);
    // The replaced dist/ is kept until the next build, which removes it.
    expect(setAside()).toHaveLength(1);
    expect(readFileSync(join(root, setAside()[0]!, 'cli', 'bin.js'), 'utf8')).toBe('one');
    await buildAndSwap(root, writes('three'));
    expect(setAside()).toHaveLength(1);
    expect(readFileSync(join(root, setAside()[0]!, 'cli', 'bin.js'), 'utf8')).toBe('two');
  });

  it('a failed build leaves dist/ as it was and no dist.next/', async () => {
    await buildAndSwap(root, writes('one'));
    await expect(
      buildAndSwap(root, (dir) => {
        writes('half')(dir);
        throw new Error('tsc exited with 2');
      }),
    ).rejects.toThrow('tsc exited with 2');
    expect(readFileSync(join(root, 'dist', 'cli', 'bin.js'), 'utf8')).toBe('one');
    expect(existsSync(join(root, 'dist.next'))).toBe(false);
    expect(distIsFresh(root)).toBe(true);
  });

  it('stamps the time the build started: a source edited during it leaves dist/ stale', async () => {
    const started = new Date(Date.now() - 60_000);
    const before = new Date(started.getTime() - 1000);
    utimesSync(join(root, 'src', 'a.ts'), before, before);
    await buildAndSwap(root, writes('one'), () => started);
    expect(Math.round(statSync(join(root, 'dist', STAMP)).mtimeMs)).toBe(started.getTime());
    expect(distIsFresh(root)).toBe(true);
    const edited = new Date(started.getTime() + 1000);
    utimesSync(join(root, 'src', 'a.ts'), edited, edited);
    expect(distIsFresh(root)).toBe(false);
  });

  it('a dist/ without a stamp (not made by a build) is stale', async () => {
    writes('by hand')(join(root, 'dist'));
    expect(distIsFresh(root)).toBe(false);
  });
});

describe('withBuildLock', () => {
  it('waits for another process holding the lock, saying so once, then runs', async () => {
    mkdirSync(join(root, '.build-lock'));
    // Another process releases it in 500 ms.
    const holder = spawn(process.execPath, [
      '-e',
      `setTimeout(() => require('node:fs').rmSync(${JSON.stringify(join(root, '.build-lock'))}, { recursive: true }), 500)`,
    ]);
    const released = new Promise((resolve) => holder.on('close', resolve));
    const onWait = vi.fn();
    const began = Date.now();
    expect(withBuildLock(root, () => 'built', { onWait, pollMs: 50 })).toBe('built');
    expect(Date.now() - began).toBeGreaterThanOrEqual(300);
    expect(onWait).toHaveBeenCalledTimes(1);
    expect(existsSync(join(root, '.build-lock'))).toBe(false);
    await released;
  });

  it('gives up after its timeout, and takes over a crashed build’s stale lock', () => {
    mkdirSync(join(root, '.build-lock'));
    expect(() => withBuildLock(root, () => 'built', { timeoutMs: 200, pollMs: 50 })).toThrow(
      /timed out waiting for another process/,
    );
    const old = new Date(Date.now() - 600_000);
    utimesSync(join(root, '.build-lock'), old, old);
    expect(withBuildLock(root, () => 'built')).toBe('built');
  });

  it('takes over at once a lock whose holder on this machine has died (a build killed half-way), but waits for a live one', async () => {
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => dead.on('close', resolve));
    mkdirSync(join(root, '.build-lock'));
    writeFileSync(join(root, '.build-lock', 'owner'), JSON.stringify({ pid: dead.pid, host: hostname() }));
    const began = Date.now();
    expect(withBuildLock(root, () => 'built', { timeoutMs: 5_000, pollMs: 50 })).toBe('built');
    expect(Date.now() - began).toBeLessThan(2_000);
    // This process is alive: its lock is waited for (and here times out).
    mkdirSync(join(root, '.build-lock'));
    writeFileSync(join(root, '.build-lock', 'owner'), JSON.stringify({ pid: process.pid, host: hostname() }));
    expect(() => withBuildLock(root, () => 'built', { timeoutMs: 200, pollMs: 50 })).toThrow(
      /timed out waiting for another process/,
    );
    rmSync(join(root, '.build-lock'), { recursive: true });
  });

  it('holds the lock until an async build settles, and releases it when the build fails', async () => {
    let release: () => void = () => {};
    const running = withBuildLock(root, () => new Promise<void>((resolve) => (release = resolve)));
    expect(existsSync(join(root, '.build-lock'))).toBe(true);
    release();
    await running;
    expect(existsSync(join(root, '.build-lock'))).toBe(false);
    await expect(withBuildLock(root, async () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(existsSync(join(root, '.build-lock'))).toBe(false);
  });
});

describe('progress', () => {
  it('says each step with the time so far, and every 10 s while a long step runs', () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    let now = 0;
    const log = progress(
      (text) => void lines.push(text),
      0,
      () => now,
    );
    log.step(1, 3, 'compiling TypeScript');
    const stop = log.heartbeat('compiling TypeScript');
    for (let i = 0; i < 25; i++) {
      now += 1000;
      vi.advanceTimersByTime(1000);
    }
    stop();
    vi.advanceTimersByTime(30_000);
    log.done('built dist/');
    expect(lines).toEqual([
      'qris-gateway: build step 1/3: compiling TypeScript (0 s)\n',
      'qris-gateway: still compiling TypeScript (10 s)\n',
      'qris-gateway: still compiling TypeScript (20 s)\n',
      'qris-gateway: built dist/ in 25 s\n',
    ]);
  });
});

describe('the entry point where there is nothing to compile from', () => {
  it('starts from dist/ without compiling, and without dist/ says so and exits 1', () => {
    // A copy of bin/ alone: no src/ and no TypeScript compiler beside it.
    cpSync(join(repo, 'bin'), join(root, 'bin'), { recursive: true });
    rmSync(join(root, 'src'), { recursive: true });
    const missing = spawnSync(process.execPath, [join(root, 'bin', 'qris-gateway.mjs'), '--version'], {
      encoding: 'utf8',
    });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(
      /dist is missing, and it cannot be built here \(no src\/, scripts\/build\.mjs or TypeScript compiler\): run `npm run build`/,
    );

    mkdirSync(join(root, 'dist', 'cli'), { recursive: true });
    writeFileSync(join(root, 'dist', 'cli', 'bin.js'), "process.stdout.write('started from dist\\n');\n");
    // With src/ again (an image that ships both) but still no compiler: no build.
    mkdirSync(join(root, 'src'));
    const started = spawnSync(process.execPath, [join(root, 'bin', 'qris-gateway.mjs'), '--version'], {
      encoding: 'utf8',
    });
    expect(started.stderr).toBe('');
    expect(started.stdout).toBe('started from dist\n');
    expect(started.status).toBe(0);
  });
});
