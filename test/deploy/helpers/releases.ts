// Other releases' images, for the upgrade test: the previous release, built from a commit of this
// repository's history with today's Dockerfile, and this release with one more migration that fails on
// purpose. Both are built on the host network, like the gateway's image (image.ts).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerEnv, type DockerDaemon } from './docker-daemon.js';
import { CACHE_REPOSITORY, docker, REPO_ROOT } from './image.js';
import { run } from './run.js';

const git = (args: string[]) =>
  execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The full id of a commit of this repository; a clear error when the clone does not hold it (a shallow one). */
export function commitOf(revision: string): string {
  try {
    return git(['rev-parse', '--verify', `${revision}^{commit}`]);
  } catch {
    throw new Error(
      `the upgrade test builds the previous release from commit ${revision}, which this clone does not have: git fetch --unshallow`,
    );
  }
}

/** The newest commit that added the file `path`. */
export function lastCommitAdding(path: string): string {
  const commit = git(['log', '-1', '--format=%H', '--diff-filter=A', '--', path]);
  if (commit === '') throw new Error(`no commit of this clone added ${path}: git fetch --unshallow`);
  return commit;
}

/** The names of the migrations a commit's sources list (src/storage/migrations/NNN-name.ts), in order. */
export function migrationsAt(commit: string): string[] {
  return git(['ls-tree', '--name-only', `${commit}:src/storage/migrations`])
    .split('\n')
    .filter((name) => /^\d{3}-.+\.ts$/.test(name))
    .map((name) => name.replace(/\.ts$/, ''))
    .sort();
}

async function imageExists(daemon: DockerDaemon, tag: string): Promise<boolean> {
  return (await docker(daemon, ['image', 'inspect', tag], { allowFailure: true })).code === 0;
}

/**
 * The image of `commit`: its sources (git archive) with this checkout's Dockerfile and .dockerignore,
 * since the release before the image had none. On the test's own daemon it is kept for the next run
 * (`keep`), so the previous release is built once per machine; returns its tag.
 */
export async function buildRelease(daemon: DockerDaemon, commit: string, keep: boolean): Promise<string> {
  const tag = keep
    ? `${CACHE_REPOSITORY}:release-${commit.slice(0, 12)}`
    : `qris-gateway:release-${commit.slice(0, 12)}-${Math.random().toString(36).slice(2, 8)}`;
  if (keep && (await imageExists(daemon, tag))) return tag;
  const dir = mkdtempSync(join(tmpdir(), 'qg-release-'));
  try {
    execFileSync('sh', ['-c', `git -C "$1" archive --format=tar "$2" | tar -x -C "$3"`, 'sh', REPO_ROOT, commit, dir]);
    for (const file of ['Dockerfile', '.dockerignore']) cpSync(join(REPO_ROOT, file), join(dir, file));
    // The Dockerfile copies the build's helper module, which releases before it did not have.
    if (!existsSync(join(dir, 'scripts', 'build-steps.mjs')))
      writeFileSync(join(dir, 'scripts', 'build-steps.mjs'), 'export {};\n');
    await run('docker', ['build', '--network', 'host', '-t', tag, dir], {
      env: dockerEnv(daemon.host),
      timeoutMs: 1_800_000,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return tag;
}

/** The migration the failing image adds: sorted after every real one, it creates a table, then throws. */
export const FAILING_MIGRATION = '999-fails-on-purpose';

/**
 * `image` with FAILING_MIGRATION added to the compiled list (dist/storage/migrate.js). What it creates
 * before it throws must be rolled back with the rest. Built in seconds: nothing is installed.
 */
export async function buildFailingRelease(daemon: DockerDaemon, image: string): Promise<string> {
  const tag = `qris-gateway:failing-migration-${Math.random().toString(36).slice(2, 8)}`;
  const dir = mkdtempSync(join(tmpdir(), 'qg-failing-'));
  try {
    const anchor = 'export const MIGRATIONS = {';
    const added = `'${FAILING_MIGRATION}': { async up(db) { await db.schema.createTable('upgrade_probe').addColumn('id', 'text').execute(); throw new Error('a deliberate failure of the deploy test'); } },`;
    writeFileSync(
      join(dir, 'patch.cjs'),
      `const fs = require('node:fs');
const file = '/app/dist/storage/migrate.js';
const text = fs.readFileSync(file, 'utf8');
if (!text.includes(${JSON.stringify(anchor)})) { console.error('no migration list in ' + file); process.exit(3); }
fs.writeFileSync(file, text.replace(${JSON.stringify(anchor)}, ${JSON.stringify(`${anchor} ${added}`)}));
`,
    );
    writeFileSync(
      join(dir, 'Dockerfile'),
      `FROM ${image}\nUSER root\nCOPY patch.cjs /tmp/patch.cjs\nRUN node /tmp/patch.cjs && rm /tmp/patch.cjs\nUSER node\n`,
    );
    await run('docker', ['build', '--network', 'host', '-t', tag, dir], {
      env: dockerEnv(daemon.host),
      timeoutMs: 300_000,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return tag;
}
