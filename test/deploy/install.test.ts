// issue 38, parts 3 and 4: deploy/install.sh on a server with Docker (so it installs nothing), from a
// checkout, with the test's switches only (Caddy's internal CA, 127.0.0.1 ports, no DNS check): .env
// owner-only with generated secrets, the stack healthy over HTTPS, the console URL and operator command
// printed; a second run changes nothing; the printed command makes an operator who logs in; then
// deploy/upgrade.sh --no-pull backs up, rebuilds, restarts, keeps every transaction and says how to roll back.
// Without the switch, a domain that does not resolve is refused before anything is written. With
// --postgres: PostgreSQL and Redis with a generated password, and upgrade.sh's pg_dump.
import { readFileSync, statSync } from 'node:fs';
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

/**
 * A checkout as a server's clone is, and the environment install.sh and upgrade.sh run in there: the
 * test's daemon, its project name, 127.0.0.1 ports and the image built already. Removed after the file's
 * cases, with the `:previous` tag upgrade.sh gives the running image.
 */
function useCheckout() {
  const ctx = {} as { stack: Stack; env: NodeJS.ProcessEnv };
  beforeAll(async () => {
    ctx.stack = await Stack.create(daemon, { image, domain: DOMAIN, checkout: true });
    ctx.env = dockerEnv(daemon.host, {
      COMPOSE_PROJECT_NAME: ctx.stack.project,
      HTTP_PORT: `127.0.0.1:${ctx.stack.httpPort}`,
      HTTPS_PORT: `127.0.0.1:${ctx.stack.httpsPort}`,
      GATEWAY_IMAGE: image,
    });
  });
  afterAll(async () => {
    await ctx.stack?.destroy();
    await removeImage(daemon, `${image.replace(/:[^:/]*$/, '')}:previous`);
  });
  const script = (name: string, args: string[]) =>
    run('bash', [join(ctx.stack.dir, 'deploy', name), ...args], { env: ctx.env, cwd: ctx.stack.dir, timeoutMs: 600_000, allowFailure: true });
  return { ctx, script };
}

describe('deploy/install.sh and deploy/upgrade.sh', () => {
  const { ctx, script } = useCheckout();
  let firstOutput = '';
  let target: HttpsTarget;
  let installSeconds = 0;
  const trxids: string[] = [];

  const containers = async () => {
    const ids = (await ctx.stack.compose(['ps', '-q'])).stdout.trim().split('\n').sort();
    const { stdout } = await docker(daemon, ['inspect', '--format', '{{.Id}} {{.State.StartedAt}}', ...ids]);
    return stdout;
  };

  it('installs: .env owner-only with generated secrets, HTTPS health, the console URL and the operator command', async () => {
    const started = Date.now();
    const r = await script('install.sh', ['--domain', DOMAIN, '--email', EMAIL, '--yes', '--internal-ca', '--skip-dns-check']);
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
    target = { domain: DOMAIN, port: ctx.stack.httpsPort, ca: readFileSync(join(ctx.stack.dir, 'deploy', 'caddy-root.crt'), 'utf8') };
    const health = await https(target, 'GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.authorized).toBe(true);
    // /metrics answers only with the generated token.
    expect((await https(target, 'GET', '/metrics')).status).toBe(401);
  });

  it('a second run exits 0 and changes nothing: .env byte-identical, the containers not recreated', async () => {
    const envBefore = readFileSync(join(ctx.stack.dir, '.env'));
    const before = await containers();
    const r = await script('install.sh', ['--domain', DOMAIN, '--email', EMAIL, '--yes', '--internal-ca', '--skip-dns-check']);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(ctx.stack.dir, '.env')).equals(envBefore)).toBe(true);
    expect(await containers()).toBe(before);
  });

  it('the printed operator command makes an operator who logs in to the console over HTTPS', async () => {
    const printed = /^ {2}(cd .+ exec gateway qris-gateway user add .+)$/m.exec(firstOutput)?.[1];
    expect(printed).toBeDefined();
    // As printed; -T only because this test has no terminal (the password comes on standard input).
    const password = 'install test password';
    const made = await run('sh', ['-c', printed!.replace(' exec gateway ', ' exec -T gateway ')], { env: ctx.env, input: `${password}\n` });
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
    expect((await https(target, 'GET', '/dashboard/transactions', { headers: { cookie: jar.header() } })).status).toBe(200);
  });

  it('deploy/upgrade.sh --no-pull: a backup in the data volume, healthy again, every transaction kept, the rollback named', async () => {
    const merchants = await ctx.stack.cli<{ items: Array<{ id: string }> }>(['merchant', 'list']);
    const key = (await ctx.stack.cli<{ key: string }>(['key', 'create', '--merchant', merchants.items[0]!.id, '--mode', 'test'])).key;
    for (const amount of [25000, 10000]) {
      const create = await https(target, 'POST', '/api/payment-gateway/cqris', {
        headers: { 'x-api-key': key, 'content-type': 'application/x-www-form-urlencoded' },
        body: `amount=${amount}`,
      });
      expect(create.status).toBe(201);
      trxids.push((JSON.parse(create.body) as { data: { trxid: string } }).data.trxid);
    }
    const r = await script('upgrade.sh', ['--no-pull', '--yes']);
    expect(r.code, r.stderr + r.stdout.slice(-2000)).toBe(0);
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
    const r = await run('sh', ['-c', 'shellcheck deploy/*.sh deploy/test/*.sh'], { cwd: REPO_ROOT, allowFailure: true });
    expect(r.code, r.stdout).toBe(0);
  });
});

describe('deploy/install.sh checks the domain first', () => {
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
    const r = await run('bash', [join(stack.dir, 'deploy', 'install.sh'), '--domain', wrong, '--email', EMAIL, '--yes'], {
      env,
      cwd: stack.dir,
      allowFailure: true,
      timeoutMs: 120_000,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`install.sh: ${wrong} does not resolve: add its A (or AAAA) record`);
    expect(() => statSync(join(stack.dir, '.env'))).toThrow();
    const made = await docker(daemon, ['ps', '-aq', '--filter', `label=com.docker.compose.project=${stack.project}`]);
    expect(made.stdout.trim()).toBe('');
  });
});

describe('deploy/install.sh --postgres, and deploy/upgrade.sh on it', () => {
  const { ctx, script } = useCheckout();
  let target: HttpsTarget;

  it('installs with PostgreSQL and Redis: a generated password in .env, the gateway on PostgreSQL over HTTPS', async () => {
    const r = await script('install.sh', ['--domain', DOMAIN, '--email', EMAIL, '--postgres', '--yes', '--internal-ca', '--skip-dns-check']);
    expect(r.code, r.stderr + (r.code !== 0 ? await ctx.stack.logs() : '')).toBe(0);
    const text = readFileSync(join(ctx.stack.dir, '.env'), 'utf8');
    const password = /^POSTGRES_PASSWORD=([0-9a-f]{48})$/m.exec(text)?.[1];
    expect(password, text).toBeDefined();
    expect(text).toMatch(/^COMPOSE_PROFILES=postgres$/m);
    expect(text).toContain(`DATABASE_URL=postgres://gateway:${password}@postgres:5432/gateway`);
    expect(text).toMatch(/^REDIS_URL=redis:\/\/redis:6379$/m);
    target = { domain: DOMAIN, port: ctx.stack.httpsPort, ca: readFileSync(join(ctx.stack.dir, 'deploy', 'caddy-root.crt'), 'utf8') };
    const ready = await https(target, 'GET', '/readyz');
    expect(JSON.parse(ready.body)).toEqual({ success: true, data: { status: 'ready', database: 'postgres' } });
  });

  it('upgrade.sh --no-pull: a pg_dump beside compose.yaml, owner-only and readable by pg_restore; every transaction kept', async () => {
    const merchants = await ctx.stack.cli<{ items: Array<{ id: string }> }>(['merchant', 'list']);
    const key = (await ctx.stack.cli<{ key: string }>(['key', 'create', '--merchant', merchants.items[0]!.id, '--mode', 'test'])).key;
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
    const listed = await run('sh', ['-c', 'docker exec -i "$1" pg_restore --list < "$2"', 'sh', await ctx.stack.container('postgres'), backup!], {
      env: ctx.env,
    });
    expect(listed.stdout).toMatch(/TABLE DATA public transactions /);
    expect((await https(target, 'GET', '/readyz')).status).toBe(200);
    const after = await ctx.stack.cli<{ items: Array<{ trxid: string }> }>(['transactions', 'list']);
    expect(after.items.map((t) => t.trxid).sort()).toEqual([...trxids].sort());
  });
});
