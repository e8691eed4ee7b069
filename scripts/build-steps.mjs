// How dist/ is built and put in place, shared by `npm run build` (scripts/build.mjs) and the entry point
// (bin/qris-gateway.mjs), plain JavaScript so it runs before anything is compiled.
//
// A build never writes into dist/: it compiles into dist.next/, and only a complete build is renamed into
// place (the dist/ it replaces is kept as dist.old-<time> until the next build), so a gateway still running
// while `npm run build` works never finds a half-written dist/, and a failed build leaves the old one whole.
// One build at a time: a lock directory beside dist/ (not inside it, since dist/ is swapped).
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const STAMP = '.build-stamp';

/** The newest modification time under dir, files of every depth. */
export function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Whether dist/ holds a complete build (its stamp) newer than every file under src/. */
export function distIsFresh(root) {
  const stamp = join(root, 'dist', STAMP);
  if (!existsSync(join(root, 'dist', 'cli', 'bin.js')) || !existsSync(stamp)) return false;
  return newestMtime(join(root, 'src')) <= statSync(stamp).mtimeMs;
}

/**
 * Whether the lock's holder is a process of this machine that no longer runs (its `owner` file names its
 * pid and host): a build killed half-way (a test's timeout, Ctrl-C) leaves the lock behind, and a start
 * then need not wait out staleMs. Unknown (no owner written yet, another host's): false.
 */
function holderIsGone(lock) {
  let owner;
  try {
    owner = JSON.parse(readFileSync(join(lock, 'owner'), 'utf8'));
  } catch {
    return false;
  }
  if (owner?.host !== hostname() || !Number.isInteger(owner?.pid)) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (err) {
    return err.code === 'ESRCH';
  }
}

/**
 * Runs fn holding the build lock (root/.build-lock). Another holder is waited for, at most timeoutMs; a
 * lock older than staleMs, or whose holder on this machine has died, is a crashed build's and is taken
 * over. `onWait` is told once that it waits.
 */
export function withBuildLock(
  root,
  fn,
  { timeoutMs = 180_000, staleMs = 180_000, pollMs = 200, onWait = () => {} } = {},
) {
  const lock = join(root, '.build-lock');
  const deadline = Date.now() + timeoutMs;
  let told = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'owner'), JSON.stringify({ pid: process.pid, host: hostname() }));
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      // The holder may have removed it between the mkdir and this look: then simply try again.
      let age = 0;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch (statErr) {
        if (statErr.code === 'ENOENT') continue;
        throw statErr;
      }
      if (age > staleMs || holderIsGone(lock)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error('timed out waiting for another process to finish building dist/');
      if (!told) {
        told = true;
        onWait();
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, pollMs);
    }
  }
  const release = () => rmSync(lock, { recursive: true, force: true });
  let result;
  try {
    result = fn();
  } catch (err) {
    release();
    throw err;
  }
  // A promise (an async build) holds the lock until it settles.
  if (result && typeof result.then === 'function') return result.finally(release);
  release();
  return result;
}

/**
 * Builds into root/dist.next with `compile(dir)` (which fills dir, and may be async), stamps it with the
 * time the build started (an edit made during the build still counts as newer), then swaps it in: dist/
 * becomes dist.old-<time>, dist.next/ becomes dist/. Copies set aside by earlier builds are removed first.
 * A compile that throws leaves dist/ as it was. Call it holding the lock.
 */
export async function buildAndSwap(root, compile, now = () => new Date()) {
  const started = now();
  const next = join(root, 'dist.next');
  for (const name of readdirSync(root))
    if (name.startsWith('dist.old-')) rmSync(join(root, name), { recursive: true, force: true });
  rmSync(next, { recursive: true, force: true });
  try {
    await compile(next);
  } catch (err) {
    rmSync(next, { recursive: true, force: true });
    throw err;
  }
  const stamp = join(next, STAMP);
  writeFileSync(stamp, started.toISOString());
  utimesSync(stamp, started, started);
  const dist = join(root, 'dist');
  const old = join(root, `dist.old-${started.toISOString().replace(/[:.]/g, '-')}`);
  if (existsSync(dist)) renameSync(dist, old);
  renameSync(next, dist);
  return { started, setAside: existsSync(old) ? old : null };
}

/** Progress of a build on stderr: the step, and a line every `everyMs` while a long step runs, with the time so far. */
export function progress(write = (text) => void process.stderr.write(text), start = Date.now(), clock = Date.now) {
  const seconds = () => `${Math.round((clock() - start) / 1000)} s`;
  return {
    step(n, total, text) {
      write(`qris-gateway: build step ${n}/${total}: ${text} (${seconds()})\n`);
    },
    /** Until the returned function is called, says every everyMs that `what` is still running. */
    heartbeat(what, everyMs = 10_000) {
      const timer = setInterval(() => write(`qris-gateway: still ${what} (${seconds()})\n`), everyMs);
      return () => clearInterval(timer);
    },
    done(text) {
      write(`qris-gateway: ${text} in ${seconds()}\n`);
    },
  };
}
