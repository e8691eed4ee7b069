// deploy/qris-gateway.service and deploy/systemd/Caddyfile (issue 38, part 5): the unit passes
// `systemd-analyze verify`, carries the hardening docs/deploying.md promises, and agrees with the gateway's own
// settings (its TRUST_PROXY trusts Caddy's address and no other, its stop timeout outlasts
// SHUTDOWN_TIMEOUT_MS); the Caddyfile passes `caddy validate` and proxies DOMAIN to the unit's address.
//
// `systemd-analyze verify` refuses a unit whose ExecStart names a missing file, and /usr/local/bin/qris-gateway
// exists only where the package is installed: the copy verified here names this Node.js and the checkout's
// entry point instead, every other line as shipped.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { parseProxyTrust, proxyTrustFunction } from '../../src/domain/proxy-trust.js';
import { run } from './helpers/run.js';

const REPO_ROOT = join(import.meta.dirname, '..', '..');
const unitFile = join(REPO_ROOT, 'deploy', 'qris-gateway.service');
const caddyfile = join(REPO_ROOT, 'deploy', 'systemd', 'Caddyfile');
const unit = readFileSync(unitFile, 'utf8');
const work = mkdtempSync(join(tmpdir(), 'qg-systemd-'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The unit's assignments: name to every value it is given, in order (comments and sections left out). */
function settings(text: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (!m) continue;
    map.set(m[1]!, [...(map.get(m[1]!) ?? []), m[2]!]);
  }
  return map;
}

const unitSettings = settings(unit);
const one = (name: string) => unitSettings.get(name)?.at(-1);
const environment = new Map(
  (unitSettings.get('Environment') ?? []).map((assignment) => {
    const eq = assignment.indexOf('=');
    return [assignment.slice(0, eq), assignment.slice(eq + 1)] as const;
  }),
);

describe('deploy/qris-gateway.service', () => {
  it('passes systemd-analyze verify', async () => {
    expect(one('ExecStart')).toBe('/usr/local/bin/qris-gateway serve');
    const copy = join(work, 'qris-gateway.service');
    writeFileSync(
      copy,
      unit.replace(
        /^ExecStart=.*$/m,
        `ExecStart=${process.execPath} ${join(REPO_ROOT, 'bin', 'qris-gateway.mjs')} serve`,
      ),
    );
    const result = await run('systemd-analyze', ['verify', copy], { allowFailure: true, timeoutMs: 60_000 });
    expect(result.stderr + result.stdout).toBe('');
    expect(result.code).toBe(0);
  });

  it('runs hardened, as its own user, with everything it writes in its state directory', () => {
    const expected: Record<string, string> = {
      User: 'qris-gateway',
      Group: 'qris-gateway',
      StateDirectory: 'qris-gateway',
      WorkingDirectory: '/var/lib/qris-gateway',
      EnvironmentFile: '-/etc/qris-gateway/env',
      ProtectSystem: 'strict',
      ProtectHome: 'yes',
      PrivateTmp: 'yes',
      PrivateDevices: 'yes',
      NoNewPrivileges: 'yes',
      ProtectKernelTunables: 'yes',
      ProtectKernelModules: 'yes',
      ProtectKernelLogs: 'yes',
      ProtectControlGroups: 'yes',
      RestrictAddressFamilies: 'AF_INET AF_INET6 AF_UNIX',
      LockPersonality: 'yes',
      SystemCallFilter: '@system-service',
      CapabilityBoundingSet: '',
      Restart: 'on-failure',
      KillSignal: 'SIGTERM',
    };
    for (const [name, value] of Object.entries(expected)) expect(one(name), name).toBe(value);
    // V8's JIT needs memory it writes and then runs: Node aborts under MemoryDenyWriteExecute=yes.
    expect(unitSettings.has('MemoryDenyWriteExecute')).toBe(false);
    expect(environment.get('DATABASE_URL')).toBe('sqlite:/var/lib/qris-gateway/qris-gateway.db');
  });

  it('agrees with the gateway: loopback only, trusting Caddy’s address, a stop timeout longer than the shutdown’s', () => {
    const config = loadConfig(Object.fromEntries(environment));
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(3000);
    const trusts = proxyTrustFunction(parseProxyTrust(environment.get('TRUST_PROXY')));
    expect(trusts).not.toBe(false);
    if (trusts === false) return;
    expect(trusts('127.0.0.1', 0)).toBe(true);
    expect(trusts('10.0.0.7', 0)).toBe(false);
    expect(trusts('203.0.113.9', 1)).toBe(false);
    const stopSeconds = Number(/^(\d+)s?$/.exec(one('TimeoutStopSec') ?? '')?.[1]);
    expect(stopSeconds * 1000).toBeGreaterThan(config.shutdownTimeoutMs);
  });
});

describe('deploy/systemd/Caddyfile', () => {
  // Caddy keeps its state under HOME / XDG folders: a temporary one, so the test leaves nothing behind.
  const caddyEnv = () => {
    const home = join(work, 'caddy-home');
    mkdirSync(home, { recursive: true });
    return {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      XDG_DATA_HOME: home,
      XDG_CONFIG_HOME: home,
      DOMAIN: 'pay.example.com',
    };
  };

  it('passes caddy validate', async () => {
    const result = await run('caddy', ['validate', '--adapter', 'caddyfile', '--config', caddyfile], {
      env: caddyEnv(),
      timeoutMs: 60_000,
    });
    expect(result.stdout + result.stderr).toContain('Valid configuration');
  });

  it('proxies DOMAIN to the address the unit listens on, with a certificate from a public CA', async () => {
    const { stdout } = await run('caddy', ['adapt', '--adapter', 'caddyfile', '--config', caddyfile], {
      env: caddyEnv(),
      timeoutMs: 60_000,
    });
    expect(stdout).toContain('"host":["pay.example.com"]');
    expect(stdout).toContain(`"dial":"${environment.get('HOST')}:${environment.get('PORT')}"`);
    expect(stdout).not.toContain('"module":"internal"');
  });
});
