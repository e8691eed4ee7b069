// deploy/Caddyfile as caddy:2 reads it: the default (CADDY_TLS=acme, or unset) leaves certificates to Caddy's
// automatic HTTPS (a public ACME CA: the real path), and only CADDY_TLS=internal, which the compose test
// uses, switches to Caddy's own CA. Both proxy DOMAIN to the gateway.
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { DockerDaemon } from './helpers/docker-daemon.js';
import { Stack } from './helpers/compose.js';
import { docker, REPO_ROOT } from './helpers/image.js';

const daemon: DockerDaemon = { host: inject('dockerHost'), own: inject('ownDaemon'), stop: async () => {} };

async function adapt(env: Record<string, string>): Promise<string> {
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const caddyfile = join(REPO_ROOT, 'deploy', 'Caddyfile');
  const { stdout } = await docker(daemon, [
    'run',
    '--rm',
    '--network',
    'none',
    ...envArgs,
    '-v',
    `${caddyfile}:/etc/caddy/Caddyfile:ro`,
    'caddy:2',
    'caddy',
    'adapt',
    '--config',
    '/etc/caddy/Caddyfile',
    '--adapter',
    'caddyfile',
  ]);
  return stdout;
}

describe('deploy/Caddyfile', () => {
  it('gets certificates from a public CA by default, and proxies the domain to the gateway', async () => {
    const envs: Array<Record<string, string>> = [
      { DOMAIN: 'pay.example.com', ACME_EMAIL: 'ops@example.org' },
      { DOMAIN: 'pay.example.com', ACME_EMAIL: 'ops@example.org', CADDY_TLS: 'acme' },
    ];
    for (const env of envs) {
      const config = await adapt(env);
      expect(config).toContain('"host":["pay.example.com"]');
      expect(config).toContain('"dial":"gateway:3000"');
      expect(config).not.toContain('"module":"internal"');
      // The account is the operator's address (install.sh's --email), at Let's Encrypt and at ZeroSSL,
      // which Caddy turns to only with one.
      expect(config).toContain(
        '"issuers":[{"email":"ops@example.org","module":"acme"},{"email":"ops@example.org","module":"zerossl"}]',
      );
    }
  });

  it('compose.yaml refuses to start the stack without ACME_EMAIL, saying so', async () => {
    const stack = await Stack.create(daemon, {
      image: 'qris-gateway:unused',
      domain: 'pay.example.com',
      env: { ACME_EMAIL: '' },
    });
    try {
      const r = await stack.compose(['config', '--quiet'], { allowFailure: true });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('set ACME_EMAIL in .env');
    } finally {
      await stack.destroy();
    }
  });

  it('uses Caddy’s own CA with CADDY_TLS=internal', async () => {
    const config = await adapt({ DOMAIN: 'pay.example.com', CADDY_TLS: 'internal' });
    expect(config).toContain('"issuers":[{"module":"internal"}]');
  });
});
