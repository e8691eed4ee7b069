// issue 38, part 1: the image. Runs as a non-root user, stays under the size budget docs/deploying.md states, carries
// dist/ and no sources (it never compiles), keeps its data in the one volume, reports healthy through
// its HEALTHCHECK, and stops gracefully on SIGTERM.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DockerDaemon } from './helpers/docker-daemon.js';
import { docker, inspectImage, REPO_ROOT, waitHealthy } from './helpers/image.js';

const daemon: DockerDaemon = { host: inject('dockerHost'), own: inject('ownDaemon'), stop: async () => {} };
const image = inject('gatewayImage');
const MB = 1_000_000;

/** docs/deploying.md's budget: "the image's own layers at most N MB" (the base image comes on top). */
function budgetMb(): number {
  const readme = readFileSync(join(REPO_ROOT, 'docs', 'deploying.md'), 'utf8');
  const m = /own layers at most \*\*(\d+) MB\*\*/.exec(readme);
  if (!m) throw new Error('docs/deploying.md states no image size budget ("own layers at most **N MB**")');
  return Number(m[1]);
}

describe('the image', () => {
  it('runs as a non-root user, starts dist/ directly, and keeps its data in /data', async () => {
    const info = await inspectImage(daemon, image);
    expect(info.user).toBe('node');
    expect(info.cmd).toEqual(['node', 'dist/cli/bin.js', 'serve']);
    expect(info.volumes).toEqual(['/data']);
    expect(info.env).toContain('HOST=0.0.0.0');
    expect(info.env).toContain('DATABASE_URL=sqlite:/data/qris-gateway.db');
    const { stdout } = await docker(daemon, [
      'run',
      '--rm',
      '--network',
      'none',
      image,
      'sh',
      '-c',
      'id -u; ls /app; ls -d /app/dist/cli/bin.js; stat -c %U /data',
    ]);
    const [uid, ...rest] = stdout.trim().split('\n');
    expect(Number(uid)).not.toBe(0);
    // No sources to compile, no tests, no lock-step copy of the repository: what runs and its dependencies.
    expect(rest).toEqual(['dist', 'node_modules', 'package.json', '/app/dist/cli/bin.js', 'node']);
  });

  it('is within the size budget docs/deploying.md states', async () => {
    const info = await inspectImage(daemon, image);
    const base = await inspectImage(daemon, 'node:20-bookworm-slim');
    const own = info.size - base.size;
    process.stdout.write(
      `image size: ${(info.size / MB).toFixed(1)} MB in all, ${(own / MB).toFixed(1)} MB of its own on ${(base.size / MB).toFixed(1)} MB of node:20-bookworm-slim\n`,
    );
    expect(own / MB).toBeLessThanOrEqual(budgetMb());
  });

  describe('a container of it', () => {
    const name = `qg-image-test-${Math.random().toString(36).slice(2, 8)}`;

    beforeAll(async () => {
      await docker(daemon, ['network', 'create', name]);
      await docker(daemon, ['volume', 'create', name]);
      await docker(daemon, ['run', '-d', '--name', name, '--network', name, '-v', `${name}:/data`, image]);
    });

    afterAll(async () => {
      await docker(daemon, ['rm', '--force', '--volumes', name], { allowFailure: true });
      await docker(daemon, ['volume', 'rm', '--force', name], { allowFailure: true });
      await docker(daemon, ['network', 'rm', name], { allowFailure: true });
    });

    it('becomes healthy (HEALTHCHECK on /healthz) and serves on 0.0.0.0 with its database in the volume', async () => {
      await waitHealthy(daemon, name);
      const { stdout } = await docker(daemon, [
        'exec',
        name,
        'sh',
        '-c',
        'ls /data; qris-gateway merchant list --json',
      ]);
      expect(stdout).toContain('qris-gateway.db');
      // The first start made the sandbox merchant, and the CLI beside the server sees the same database.
      expect(stdout).toContain('"items":[{');
      const ip = (
        await docker(daemon, ['inspect', '--format', `{{(index .NetworkSettings.Networks "${name}").IPAddress}}`, name])
      ).stdout.trim();
      const probe = await docker(daemon, [
        'run',
        '--rm',
        '--network',
        name,
        image,
        'node',
        '-e',
        `fetch('http://${ip}:3000/readyz').then(async (r) => console.log(r.status, await r.text()))`,
      ]);
      expect(probe.stdout).toContain('200');
      expect(probe.stdout).toContain('"database":"sqlite"');
    });

    it('stops gracefully on SIGTERM (docker stop), exit code 0', async () => {
      await docker(daemon, ['stop', '--time', '30', name]);
      const { stdout } = await docker(daemon, ['inspect', '--format', '{{.State.ExitCode}}', name]);
      expect(stdout.trim()).toBe('0');
      const logs = await docker(daemon, ['logs', name]);
      expect(logs.stdout + logs.stderr).not.toContain('compiling TypeScript');
    });
  });
});
