// issue 38, parts 3 and 4: deploy/install.sh on a server with Docker (so it installs nothing), from a
// checkout, with the test's switches only (Caddy's internal CA, 127.0.0.1 ports, no DNS check): .env
// owner-only with generated secrets, the stack healthy over HTTPS, the console URL and operator command
// printed; a second run changes nothing; the printed command makes an operator who logs in; then
// deploy/upgrade.sh backs up, pulls a release published upstream, rebuilds, restarts, keeps every transaction
// and says how to roll back.
// Without the switch, a domain that does not resolve is refused before anything is written; one that
// resolves to this server passes, and a port in use is refused, also before .env. With --postgres:
// PostgreSQL and Redis with a generated password, and upgrade.sh's pg_dump.
// The first install is the README's three lines for a server, read from the README and run as written but
// for the test's domain and e-mail, the script's two test switches, and `sudo` (see sudoShim).
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Stack } from './helpers/compose.js';
import { dockerEnv, type DockerDaemon } from './helpers/docker-daemon.js';
import { CookieJar, https, type HttpsTarget } from './helpers/https-client.js';
import { docker, REPO_ROOT, removeImage } from './helpers/image.js';
import { run } from './helpers/run.js';

const daemon: DockerDaemon = { host: inject('dockerHost'), own: inject('ownDaemon'), stop: async () => {} };
const image = inject('gatewayImage');
const DOMAIN = 'pay.qris-gateway.test';
const EMAIL = 'ops@example.test';

/** The marker before the README's block of three lines for a server. */
const SERVER_MARKER = '<!-- test/deploy/install.test.ts runs these three lines';
/** The README's lines for a server, as written there. */
function readmeServerLines(): string[] {
  const text = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const at = text.indexOf(SERVER_MARKER);
  if (at < 0) throw new Error(`README.md has no "${SERVER_MARKER}" marker`);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(at))?.[1];
  if (!block) throw new Error('no ```sh block after the README marker');
  return block.trim().split('\n');
}
/** The README's placeholders, and the test's switches (Caddy's own CA; no DNS record points here). */
const asTested = (line: string) => line.replaceAll('pay.example.com', DOMAIN).replaceAll('you@example.com', EMAIL);
const TEST_SWITCHES = ' --internal-ca --skip-dns-check';

/**
 * A folder with `sudo` in it, first on the PATH the README's lines run with. The test runs as root, for
 * whom sudo runs the command as it is; the real one would also reset the environment, which names the
 * test's own Docker daemon, compose project and 127.0.0.1 ports (on a server those are the defaults).
 */
function sudoShim(): string {
  const dir = mkdtempSync(join(tmpdir(), 'qg-sudo-'));
  writeFileSync(join(dir, 'sudo'), '#!/bin/sh\nexec "$@"\n');
  chmodSync(join(dir, 'sudo'), 0o755);
  return dir;
}

/**
 * A checkout as a server's clone is, and the environment install.sh and upgrade.sh run in there: the
 * test's daemon, its project name, 127.0.0.1 ports and the image built already. Removed after the file's
 * cases, with the `:previous` tag upgrade.sh gives the running image.
 */
function useCheckout(options: { fromReadme?: boolean } = {}) {
  const ctx = {} as { stack: Stack; env: NodeJS.ProcessEnv; temp: string[]; upstream?: string };
  beforeAll(async () => {
    ctx.temp = [];
    let dir: string | undefined;
    if (options.fromReadme) {
      // The README's first line, `git clone <this repository> qris-gateway && cd qris-gateway`: the clone
      // has what is committed (all of it, on CI's fresh clone).
      const parent = mkdtempSync(join(tmpdir(), 'qg-clone-'));
      ctx.temp.push(parent);
      // "This repository" is a bare copy of this one, where the upgrade test publishes a commit to pull.
      ctx.upstream = join(parent, 'upstream.git');
      await run('git', ['clone', '-q', '--bare', REPO_ROOT, ctx.upstream]);
      const line = readmeServerLines()[0]!;
      expect(line).toMatch(/^git clone <this repository> qris-gateway && cd qris-gateway$/);
      const cloned = await run('sh', ['-c', `${line.replace('<this repository>', `'${ctx.upstream}'`)} && pwd`], {
        cwd: parent,
      });
      dir = cloned.stdout.trim();
      expect(dir).toBe(join(parent, 'qris-gateway'));
    }
    ctx.stack = await Stack.create(daemon, { image, domain: DOMAIN, checkout: true, dir });
    const shim = sudoShim();
    ctx.temp.push(shim);
    ctx.env = dockerEnv(daemon.host, {
      COMPOSE_PROJECT_NAME: ctx.stack.project,
      HTTP_PORT: `127.0.0.1:${ctx.stack.httpPort}`,
      HTTPS_PORT: `127.0.0.1:${ctx.stack.httpsPort}`,
      GATEWAY_IMAGE: image,
      PATH: `${shim}:${process.env.PATH}`,
    });
  });
  afterAll(async () => {
    await ctx.stack?.destroy();
    await removeImage(daemon, `${image.replace(/:[^:/]*$/, '')}:previous`);
    for (const dir of ctx.temp ?? []) rmSync(dir, { recursive: true, force: true });
  });
  const script = (name: string, args: string[]) =>
    run('bash', [join(ctx.stack.dir, 'deploy', name), ...args], {
      env: ctx.env,
      cwd: ctx.stack.dir,
      timeoutMs: 600_000,
      allowFailure: true,
    });
  /** A line of the README, run by sh in the checkout as a person would type it there. */
  const line = (text: string, input?: string) =>
    run('sh', ['-c', text], { env: ctx.env, cwd: ctx.stack.dir, timeoutMs: 600_000, allowFailure: true, input });
  return { ctx, script, line };
}

describe("the README's three lines for a server, then deploy/upgrade.sh", () => {
  const { ctx, script, line } = useCheckout({ fromReadme: true });
  const lines = readmeServerLines();
  let firstOutput = '';
  let target: HttpsTarget;
  let installSeconds = 0;
  const trxids: string[] = [];

  const containers = async () => {
    const ids = (await ctx.stack.compose(['ps', '-q'])).stdout.trim().split('\n').sort();
    const { stdout } = await docker(daemon, ['inspect', '--format', '{{.Id}} {{.State.StartedAt}}', ...ids]);
    return stdout;
  };

  it('the README has three lines: the clone, install.sh with a domain and an e-mail, the first operator', () => {
    expect(lines).toHaveLength(3);
    expect(lines[1]).toBe('sudo deploy/install.sh --domain pay.example.com --email you@example.com');
    expect(lines[2]).toMatch(
      /^sudo docker compose exec gateway qris-gateway user add --email you@example.com --role operator$/,
    );
  });

  it('installs: .env owner-only with generated secrets, HTTPS health, the console URL and the operator command', async () => {
    const started = Date.now();
    const r = await line(asTested(lines[1]!) + TEST_SWITCHES);
    installSeconds = (Date.now() - started) / 1000;
    process.stdout.write(`install.sh to HTTPS health: ${installSeconds} s\n`);
    expect(r.code, r.stderr + (r.code !== 0 ? await ctx.stack.logs() : '')).toBe(0);
    firstOutput = r.stdout;
    const envFile = join(ctx.stack.dir, '.env');
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    const text = readFileSync(envFile, 'utf8');
    expect(text).toMatch(new RegExp(`^DOMAIN=${DOMAIN.replaceAll('.', '\\.')}$`, 'm'));
    expect(text).toMatch(/^METRICS_TOKEN=[0-9a-f]{48}$/m);
    expect(text).toMatch(/^CADDY_TLS=internal$/m);
    expect(text).toContain(`ACME_EMAIL=${EMAIL}`);
    expect(text.match(/^DOMAIN=/gm)).toHaveLength(1);
    expect(text.match(/^ACME_EMAIL=/gm)).toHaveLength(1);
    expect(r.stdout).toContain(`Console: https://${DOMAIN}:${ctx.stack.httpsPort}/dashboard`);
    expect(r.stdout).toContain(`exec gateway qris-gateway user add --email ${EMAIL} --role operator`);
    target = {
      domain: DOMAIN,
      port: ctx.stack.httpsPort,
      ca: readFileSync(join(ctx.stack.dir, 'deploy', 'caddy-root.crt'), 'utf8'),
    };
    const health = await https(target, 'GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.authorized).toBe(true);
    // /metrics answers only with the generated token.
    expect((await https(target, 'GET', '/metrics')).status).toBe(401);
  });

  it('a second run exits 0 and changes nothing: .env byte-identical, the containers not recreated', async () => {
    const envBefore = readFileSync(join(ctx.stack.dir, '.env'));
    const before = await containers();
    const r = await line(asTested(lines[1]!) + TEST_SWITCHES);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(ctx.stack.dir, '.env')).equals(envBefore)).toBe(true);
    expect(await containers()).toBe(before);
  });

  it("the README's third line, which install.sh prints, makes an operator who logs in to the console over HTTPS", async () => {
    const printed = /^ {2}(cd .+ exec gateway qris-gateway user add .+)$/m.exec(firstOutput)?.[1];
    expect(printed).toBeDefined();
    // install.sh prints the README's line in the checkout, with the compose command this machine has (Debian
    // 12's Docker has `docker-compose`, not the plugin) and without sudo for root (a user who ran it with
    // sudo gets `sudo `: SUDO_USER).
    const compose = printed!.includes(' docker-compose exec ') ? 'docker-compose' : 'docker compose';
    const third = asTested(lines[2]!).replace('docker compose', compose);
    expect(printed).toBe(`cd ${ctx.stack.dir} && ${third.replace(/^sudo /, '')}`);
    // As written; -T only because this test has no terminal (the password comes on standard input).
    const password = 'install test password';
    const made = await line(third.replace(' exec gateway ', ' exec -T gateway '), `${password}\n`);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(EMAIL);
    const jar = new CookieJar();
    const form = await https(target, 'GET', '/dashboard');
    jar.take(form);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1];
    const login = await https(target, 'POST', '/dashboard/login', {
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf!, email: EMAIL, password, next: '/dashboard' }).toString(),
    });
    expect(login.status, login.body.slice(0, 300)).toBe(303);
    jar.take(login);
    expect((await https(target, 'GET', '/dashboard/transactions', { headers: { cookie: jar.header() } })).status).toBe(
      200,
    );
  });

  it('deploy/upgrade.sh: a backup in the data volume, the new commit pulled, healthy again, every transaction kept, the rollback named', async () => {
    const merchants = await ctx.stack.cli<{ items: Array<{ id: string }> }>(['merchant', 'list']);
    const key = (
      await ctx.stack.cli<{ key: string }>(['key', 'create', '--merchant', merchants.items[0]!.id, '--mode', 'test'])
    ).key;
    for (const amount of [25000, 10000]) {
      const create = await https(target, 'POST', '/api/payment-gateway/cqris', {
        headers: { 'x-api-key': key, 'content-type': 'application/x-www-form-urlencoded' },
        body: `amount=${amount}`,
      });
      expect(create.status).toBe(201);
      trxids.push((JSON.parse(create.body) as { data: { trxid: string } }).data.trxid);
    }
    // A release published upstream since the install: upgrade.sh's `git pull` takes it.
    const publisher = join(ctx.temp[0]!, 'publisher');
    await run('git', ['clone', '-q', ctx.upstream!, publisher]);
    writeFileSync(join(publisher, 'RELEASE-NOTE.txt'), 'a release after the install\n');
    const git = (args: string[], cwd: string) =>
      run('git', ['-c', 'user.name=deploy test', '-c', 'user.email=deploy@example.test', ...args], { cwd });
    await git(['add', 'RELEASE-NOTE.txt'], publisher);
    await git(['commit', '-q', '-m', 'A release after the install'], publisher);
    await git(['push', '-q', 'origin', 'HEAD'], publisher);
    const released = (await git(['rev-parse', 'HEAD'], publisher)).stdout.trim();
    const r = await script('upgrade.sh', ['--yes']);
    expect(r.code, r.stderr + r.stdout.slice(-2000)).toBe(0);
    expect(r.stdout).toContain('git pull');
    expect((await git(['rev-parse', 'HEAD'], ctx.stack.dir)).stdout.trim()).toBe(released);
    expect(readFileSync(join(ctx.stack.dir, 'RELEASE-NOTE.txt'), 'utf8')).toBe('a release after the install\n');
    const backup = /^Backup: (\/data\/backups\/\S+\.db)$/m.exec(r.stdout)?.[1];
    expect(backup, r.stdout).toBeDefined();
    expect(r.stdout).toMatch(/docker tag qris-gateway:previous \S+ && .+ restore --from \/data\/backups\//);
    const listing = await ctx.stack.exec('gateway', ['ls', '-l', backup!]);
    expect(listing).toMatch(/^-rw-------/);
    expect((await https(target, 'GET', '/healthz')).status).toBe(200);
    const listed = await ctx.stack.cli<{ items: Array<{ trxid: string }> }>(['transactions', 'list']);
    expect(listed.items.map((t) => t.trxid).sort()).toEqual([...trxids].sort());
  });

  it('deploy/*.sh are shellcheck-clean (where shellcheck is installed)', async () => {
    const has = await run('sh', ['-c', 'command -v shellcheck'], { allowFailure: true });
    if (has.code !== 0) return;
    const r = await run('sh', ['-c', 'shellcheck deploy/*.sh deploy/test/*.sh'], {
      cwd: REPO_ROOT,
      allowFailure: true,
    });
    expect(r.code, r.stdout).toBe(0);
  });
});

describe('deploy/install.sh checks the domain and the ports first', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await Stack.create(daemon, { image, domain: DOMAIN, checkout: true });
  });
  afterAll(async () => {
    await stack?.destroy();
  });

  it('refuses a domain that does not resolve, before .env is written (a run with the domain fixed is not refused for the wrong one) or anything started', async () => {
    const env = dockerEnv(daemon.host, { COMPOSE_PROJECT_NAME: stack.project });
    const wrong = 'no-such-host.qris-gateway.invalid';
    const r = await run(
      'bash',
      [join(stack.dir, 'deploy', 'install.sh'), '--domain', wrong, '--email', EMAIL, '--yes'],
      {
        env,
        cwd: stack.dir,
        allowFailure: true,
        timeoutMs: 120_000,
      },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`install.sh: ${wrong} does not resolve: add its A (or AAAA) record`);
    expect(() => statSync(join(stack.dir, '.env'))).toThrow();
    const made = await docker(daemon, ['ps', '-aq', '--filter', `label=com.docker.compose.project=${stack.project}`]);
    expect(made.stdout.trim()).toBe('');
  });

  it('accepts a domain that resolves to this server (localhost, 127.0.0.1 here), then refuses a port in use, naming it, before .env is written', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const env = dockerEnv(daemon.host, {
        COMPOSE_PROJECT_NAME: stack.project,
        HTTP_PORT: `127.0.0.1:${port}`,
        HTTPS_PORT: `127.0.0.1:${stack.httpsPort}`,
      });
      const r = await run(
        'bash',
        [join(stack.dir, 'deploy', 'install.sh'), '--domain', 'localhost', '--email', EMAIL, '--yes'],
        {
          env,
          cwd: stack.dir,
          allowFailure: true,
          timeoutMs: 120_000,
        },
      );
      expect(r.code).toBe(1);
      expect(r.stderr).not.toMatch(/resolve/);
      expect(r.stderr).toContain(`install.sh: port ${port} is in use (ss -ltnp shows by what): Caddy needs it`);
      expect(() => statSync(join(stack.dir, '.env'))).toThrow();
      const made = await docker(daemon, ['ps', '-aq', '--filter', `label=com.docker.compose.project=${stack.project}`]);
      expect(made.stdout.trim()).toBe('');
    } finally {
      taken.close();
    }
  });
});

describe('deploy/install.sh --postgres, and deploy/upgrade.sh on it', () => {
  const { ctx, script } = useCheckout();
  let target: HttpsTarget;

  it('installs with PostgreSQL and Redis: a generated password in .env, the gateway on PostgreSQL over HTTPS', async () => {
    const r = await script('install.sh', [
      '--domain',
      DOMAIN,
      '--email',
      EMAIL,
      '--postgres',
      '--yes',
      '--internal-ca',
      '--skip-dns-check',
    ]);
    expect(r.code, r.stderr + (r.code !== 0 ? await ctx.stack.logs() : '')).toBe(0);
    const text = readFileSync(join(ctx.stack.dir, '.env'), 'utf8');
    const password = /^POSTGRES_PASSWORD=([0-9a-f]{48})$/m.exec(text)?.[1];
    expect(password, text).toBeDefined();
    expect(text).toMatch(/^COMPOSE_PROFILES=postgres$/m);
    expect(text).toContain(`DATABASE_URL=postgres://gateway:${password}@postgres:5432/gateway`);
    expect(text).toMatch(/^REDIS_URL=redis:\/\/redis:6379$/m);
    target = {
      domain: DOMAIN,
      port: ctx.stack.httpsPort,
      ca: readFileSync(join(ctx.stack.dir, 'deploy', 'caddy-root.crt'), 'utf8'),
    };
    const ready = await https(target, 'GET', '/readyz');
    expect(JSON.parse(ready.body)).toEqual({ success: true, data: { status: 'ready', database: 'postgres' } });
  });

  it('upgrade.sh --no-pull: a pg_dump beside compose.yaml, owner-only and readable by pg_restore; every transaction kept', async () => {
    const merchants = await ctx.stack.cli<{ items: Array<{ id: string }> }>(['merchant', 'list']);
    const key = (
      await ctx.stack.cli<{ key: string }>(['key', 'create', '--merchant', merchants.items[0]!.id, '--mode', 'test'])
    ).key;
    const trxids: string[] = [];
    for (const amount of [21000, 12000]) {
      const create = await https(target, 'POST', '/api/payment-gateway/cqris', {
        headers: { 'x-api-key': key, 'content-type': 'application/x-www-form-urlencoded' },
        body: `amount=${amount}`,
      });
      expect(create.status).toBe(201);
      trxids.push((JSON.parse(create.body) as { data: { trxid: string } }).data.trxid);
    }
    const r = await script('upgrade.sh', ['--no-pull', '--yes']);
    expect(r.code, r.stderr + r.stdout.slice(-2000)).toBe(0);
    const backup = /^Backup: (\S+\.dump)$/m.exec(r.stdout)?.[1];
    expect(backup, r.stdout).toBeDefined();
    expect(backup!.startsWith(`${join(ctx.stack.dir, 'backups')}/`)).toBe(true);
    expect(statSync(backup!).mode & 0o777).toBe(0o600);
    expect(r.stdout).toMatch(/pg_restore -U gateway --clean --if-exists -d gateway < \S+\.dump/);
    // The dump holds the transactions table's rows, as pg_restore lists it.
    const listed = await run(
      'sh',
      ['-c', 'docker exec -i "$1" pg_restore --list < "$2"', 'sh', await ctx.stack.container('postgres'), backup!],
      {
        env: ctx.env,
      },
    );
    expect(listed.stdout).toMatch(/TABLE DATA public transactions /);
    expect((await https(target, 'GET', '/readyz')).status).toBe(200);
    const after = await ctx.stack.cli<{ items: Array<{ trxid: string }> }>(['transactions', 'list']);
    expect(after.items.map((t) => t.trxid).sort()).toEqual([...trxids].sort());
  });
});
