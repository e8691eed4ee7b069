// The package without Docker (issue 38, part 5): `npm pack` in this checkout (its prepack builds dist/),
// `npm install -g --prefix` of the tarball into an empty folder, as docs/deploying.md's 'Running a public service'
// says, then the installed `qris-gateway` command: --version, a CLI command, `serve` answering /healthz,
// /readyz, the console's page and its hashed assets, an operator made with `user add` logging in, and a
// graceful stop on SIGTERM. It must need no development dependency and write nothing into the installed
// package's folder (a global install is root's; the service runs as another user).
//
// The install takes minutes here: better-sqlite3 has no reachable prebuilt binary on this machine and
// compiles itself with node-gyp. The times are printed.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './helpers/run.js';

const REPO_ROOT = join(import.meta.dirname, '..', '..');
const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let work = '';
let tarball = '';
let prefix = '';
let installed = '';
let command = '';
let snapshot: Map<string, string>;

/** Every file and folder under dir, with its size and modification time: what a write would change. */
function listing(dir: string, into = new Map<string, string>(), base = dir): Map<string, string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const stat = lstatSync(path);
    into.set(path.slice(base.length), `${stat.size} ${stat.mtimeMs}`);
    if (entry.isDirectory()) listing(path, into, base);
  }
  return into;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  // Nothing of this checkout's: no .env (the cwd is the temporary folder), no NODE_OPTIONS from vitest.
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, ...extra };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'qg-pack-'));
  let started = Date.now();
  await run('npm', ['pack', '--pack-destination', work], { cwd: REPO_ROOT, timeoutMs: 600_000 });
  const packSeconds = (Date.now() - started) / 1000;
  tarball = join(work, `qris-gateway-${version}.tgz`);
  prefix = join(work, 'prefix');
  started = Date.now();
  await run('npm', ['install', '-g', '--prefix', prefix, tarball, '--no-audit', '--no-fund'], {
    cwd: work,
    timeoutMs: 600_000,
  });
  const installSeconds = (Date.now() - started) / 1000;
  process.stdout.write(
    `npm pack (with its build): ${packSeconds.toFixed(0)} s; npm install -g of the tarball: ${installSeconds.toFixed(0)} s\n`,
  );
  installed = join(prefix, 'lib', 'node_modules', 'qris-gateway');
  command = join(prefix, 'bin', 'qris-gateway');
  snapshot = listing(installed);
}, 900_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('npm pack', () => {
  it('holds bin/, the built dist/ with its browser files, README and package.json, and nothing of the sources or tests', async () => {
    const { stdout } = await run('tar', ['tzf', tarball]);
    const files = stdout.trim().split('\n');
    expect(files).toContain('package/bin/qris-gateway.mjs');
    expect(files).toContain('package/dist/cli/bin.js');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/dist/web/assets/checkout.css');
    expect(files).toContain('package/README.md');
    expect(files).toContain('package/package.json');
    expect(files).toContain('package/deploy/qris-gateway.service');
    expect(files).toContain('package/deploy/systemd/Caddyfile');
    const unwanted = files.filter(
      (f) =>
        /^package\/(src|test|docs|scripts|examples|packages|\.ci)\//.test(f) ||
        /\.map$|\.build-stamp$|\.test\.js$/.test(f),
    );
    expect(unwanted).toEqual([]);
    // 1,128 at the time of writing: a new top-level folder or source maps would show here.
    expect(files.length).toBeLessThan(1_500);
  });
});

describe('the installed command', () => {
  it('carries no development dependency', () => {
    for (const dev of ['typescript', 'vitest', 'tsx', '@types/node', '@biomejs/biome']) {
      expect(existsSync(join(installed, 'node_modules', dev)), dev).toBe(false);
    }
    expect(existsSync(join(installed, 'src'))).toBe(false);
  });

  it('prints its version, and runs a CLI command on a new database', async () => {
    const dbEnv = env({ DATABASE_URL: `sqlite:${join(work, 'cli', 'qris-gateway.db')}` });
    expect((await run(command, ['--version'], { env: dbEnv, cwd: work })).stdout.trim()).toBe(version);
    const list = await run(command, ['merchant', 'list', '--json'], { env: dbEnv, cwd: work });
    expect(JSON.parse(list.stdout)).toHaveProperty('items');
  });

  it('serves, lets an operator made by the CLI log in, and stops cleanly on SIGTERM; nothing written into the package', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const serveEnv = env({
      DATABASE_URL: `sqlite:${join(work, 'serve', 'qris-gateway.db')}`,
      PORT: String(port),
      HOST: '127.0.0.1',
    });
    await run(command, ['user', 'add', '--email', 'ops@example.test', '--role', 'operator', '--json'], {
      env: { ...serveEnv, ADMIN_PASSWORD: 'a long enough secret' },
      cwd: work,
    });
    const child: ChildProcess = spawn(command, ['serve'], {
      env: serveEnv,
      cwd: work,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const ready = await fetch(`${base}/readyz`).catch(() => null);
        if (ready?.status === 200) break;
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve did not become ready:\n${output}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      expect((await fetch(`${base}/healthz`)).status).toBe(200);

      // The console's login page (/dashboard, logged out), and the hashed style it links: the assets dist/ carries.
      const page = await fetch(`${base}/dashboard`);
      expect(page.status).toBe(200);
      const html = await page.text();
      const css = /href="(\/dashboard\/assets\/console\.[0-9a-f]{12}\.css)"/.exec(html)?.[1];
      expect(css).toBeDefined();
      expect((await fetch(`${base}${css}`)).status).toBe(200);

      // A login: cookies and CSRF, through the packages a global install resolves for itself (npm applies
      // package.json's overrides only in the project's own folder).
      const cookies = page.headers.getSetCookie().map((c) => c.split(';')[0]);
      const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
      const login = await fetch(`${base}/dashboard/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies.join('; ') },
        body: new URLSearchParams({
          email: 'ops@example.test',
          password: 'a long enough secret',
          next: '/dashboard',
          _csrf: csrf,
        }).toString(),
      });
      expect(login.status).toBe(303);
      const session = login.headers.getSetCookie().map((c) => c.split(';')[0]);
      const dashboard = await fetch(`${base}/dashboard`, {
        redirect: 'manual',
        headers: { cookie: [...cookies, ...session].join('; ') },
      });
      expect(dashboard.status).toBe(200);
      expect(await dashboard.text()).toContain('<h1>Overview</h1>');
    } finally {
      child.kill('SIGTERM');
    }
    const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 20_000))]);
    if (code === 'timeout') child.kill('SIGKILL');
    expect(code, output).toBe(0);
    expect(output).toContain('"msg":"stopped"');

    const after = listing(installed);
    const changed = [...new Set([...snapshot.keys(), ...after.keys()])].filter(
      (path) => snapshot.get(path) !== after.get(path),
    );
    expect(changed).toEqual([]);
  });
});
