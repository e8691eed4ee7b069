// @ts-check
// The builds an A/B compares: a directory as given, or a git revision checked out once (and reused by later
// runs) as a detached worktree under AB_DIR, by default qris-gateway-ab in the temp folder: outside the
// checkout, so that the linter, the type checker and the tests never walk the copies.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const abDir = resolve(process.env.AB_DIR || join(tmpdir(), 'qris-gateway-ab'));

const git = (argv, cwd = root) =>
  execFileSync('git', argv, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * @param {string} spec a directory or a revision
 * @param {(message: string) => never} fail
 * @returns {{ label: string, dir: string, commit: string }}
 */
export function prepareTree(spec, fail) {
  if (existsSync(spec) && statSync(spec).isDirectory()) {
    const dir = resolve(spec);
    if (!existsSync(join(dir, 'scripts', 'bench.mjs'))) fail(`${spec} has no scripts/bench.mjs`);
    let commit = 'unknown';
    try {
      commit = git(['rev-parse', '--short', 'HEAD'], dir);
    } catch {
      // not a git checkout: the label says so
    }
    return { label: spec, dir, commit };
  }
  let commit = '';
  try {
    commit = git(['rev-parse', '--verify', '--short=12', `${spec}^{commit}`]);
  } catch {
    fail(`${spec} is neither a directory nor a revision`);
  }
  const dir = join(abDir, commit);
  mkdirSync(abDir, { recursive: true });
  if (!existsSync(dir)) git(['worktree', 'add', '--detach', dir, commit]);
  // Hard links: no copy of the bytes, and no install (the registry is not needed). Both builds then run
  // on the same packages, so the A/B measures the code alone.
  // (A temp folder on another file system cannot hold hard links: a symbolic link serves then.)
  if (!existsSync(join(dir, 'node_modules'))) {
    try {
      execFileSync('cp', ['-al', join(root, 'node_modules'), join(dir, 'node_modules')], { stdio: 'ignore' });
    } catch {
      rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    }
  }
  return { label: spec, dir, commit };
}

/** @param {number[]} xs */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
