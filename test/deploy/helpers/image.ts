// The gateway's image: built from the repository's Dockerfile (the host network, as this machine needs
// for npm and Debian's mirror), inspected, removed.
import { fileURLToPath } from 'node:url';
import { dockerEnv, type DockerDaemon } from './docker-daemon.js';
import { run } from './run.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface ImageInfo {
  id: string;
  size: number;
  user: string;
  cmd: string[];
  healthcheck: string[] | null;
  volumes: string[];
  env: string[];
}

export async function docker(
  daemon: DockerDaemon,
  args: readonly string[],
  options: { allowFailure?: boolean; input?: string; timeoutMs?: number } = {},
) {
  return run('docker', args, { env: dockerEnv(daemon.host), ...options });
}

/** The Dockerfile's named stages. */
export const BUILD_STAGES = ['deps', 'build'] as const;

/** Where the stage images are kept between runs on the test's own daemon. */
export const CACHE_REPOSITORY = 'qris-gateway-deploy-cache';

async function imageId(daemon: DockerDaemon, name: string): Promise<string | null> {
  const r = await docker(daemon, ['image', 'inspect', '--format', '{{.Id}}', name], { allowFailure: true });
  return r.code === 0 ? r.stdout.trim() : null;
}

/**
 * `docker build` of the repository (BuildKit when the CLI has it and DOCKER_BUILDKIT does not say 0, else
 * the classic builder), on the host network. Each stage is built and tagged first, then the image, which
 * reuses them from the cache: so every image the build makes has a name, and nothing is left untagged.
 * With `keepCache` (the test's own daemon) the stages are tagged `qris-gateway-deploy-cache:<stage>` and
 * kept for the next run, which then skips the native compile and the installs while package-lock.json is
 * unchanged; the images they replace are removed. Otherwise they are `<tag>-<stage>`, removed with the image.
 * Returns what removes the image (and the stage images it must not keep).
 */
export async function buildImage(daemon: DockerDaemon, tag: string, keepCache: boolean): Promise<() => Promise<void>> {
  const build = (args: string[]) =>
    run('docker', ['build', '--network', 'host', ...args, REPO_ROOT], {
      env: dockerEnv(daemon.host),
      timeoutMs: 1_800_000,
    });
  const stageTag = (stage: string) => (keepCache ? `${CACHE_REPOSITORY}:${stage}` : `${tag}-${stage}`);
  const replaced: string[] = [];
  const remove = async () => {
    await removeImage(daemon, tag);
    if (!keepCache) for (const stage of BUILD_STAGES) await removeImage(daemon, stageTag(stage));
    for (const id of replaced) await removeImage(daemon, id);
  };
  try {
    for (const stage of BUILD_STAGES) {
      const before = await imageId(daemon, stageTag(stage));
      await build(['--target', stage, '-t', stageTag(stage)]);
      const after = await imageId(daemon, stageTag(stage));
      if (before !== null && before !== after) replaced.push(before);
    }
    await build(['-t', tag]);
  } catch (err) {
    await remove();
    throw err;
  }
  return remove;
}

export async function inspectImage(daemon: DockerDaemon, tag: string): Promise<ImageInfo> {
  const { stdout } = await docker(daemon, ['image', 'inspect', tag]);
  const [raw] = JSON.parse(stdout) as Array<{
    Id: string;
    Size: number;
    Config: {
      User: string;
      Cmd: string[];
      Healthcheck?: { Test: string[] };
      Volumes?: Record<string, unknown>;
      Env: string[];
    };
  }>;
  if (!raw) throw new Error(`no image ${tag}`);
  return {
    id: raw.Id,
    size: raw.Size,
    user: raw.Config.User,
    cmd: raw.Config.Cmd,
    healthcheck: raw.Config.Healthcheck?.Test ?? null,
    volumes: Object.keys(raw.Config.Volumes ?? {}),
    env: raw.Config.Env,
  };
}

export async function removeImage(daemon: DockerDaemon, tag: string): Promise<void> {
  await docker(daemon, ['image', 'rm', '--force', tag], { allowFailure: true });
}

/** Waits until the container's health check reports `healthy` (throws on `unhealthy` or after the time). */
export async function waitHealthy(daemon: DockerDaemon, container: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { stdout } = await docker(daemon, ['inspect', '--format', '{{.State.Health.Status}}', container]);
    const status = stdout.trim();
    if (status === 'healthy') return;
    if (status === 'unhealthy' || Date.now() > deadline) {
      const logs = await docker(daemon, ['logs', '--tail', '50', container], { allowFailure: true });
      throw new Error(`container ${container} is ${status}:\n${logs.stdout}${logs.stderr}`);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}
