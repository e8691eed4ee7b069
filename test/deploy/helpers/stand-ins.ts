// The stand-in base images (deploy/test/stand-in-images.sh): Debian-built images tagged node:20-bookworm-slim,
// caddy:2, postgres:15-bookworm and redis:7-bookworm, for a machine that cannot pull from Docker Hub. Made on
// the test's own daemon (never on a shared one, where they would shadow the real images) unless
// QG_STAND_INS=1 asks for them there too; QG_STAND_INS=0 never makes them (the daemon pulls).
import { fileURLToPath } from 'node:url';
import { deployCache, dockerEnv, type DockerDaemon } from './docker-daemon.js';
import { run } from './run.js';

export const STAND_IN_SCRIPT = fileURLToPath(new URL('../../../deploy/test/stand-in-images.sh', import.meta.url));

/** The base images compose.yaml and the Dockerfile name. */
export const BASE_IMAGES = ['node:20-bookworm-slim', 'caddy:2', 'postgres:15-bookworm', 'redis:7-bookworm'] as const;

export function wantsStandIns(daemon: DockerDaemon): boolean {
  const asked = process.env.QG_STAND_INS;
  return asked === undefined || asked === '' ? daemon.own : asked === '1';
}

/** Builds (or finds current) the stand-ins; a second run with a warm cache takes seconds. */
export async function ensureStandIns(daemon: DockerDaemon): Promise<void> {
  if (!wantsStandIns(daemon)) return;
  await run('bash', [STAND_IN_SCRIPT], {
    env: dockerEnv(daemon.host, { QG_DEPLOY_CACHE: deployCache() }),
    timeoutMs: 1_200_000,
  });
}
