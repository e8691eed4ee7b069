// The Docker daemon the deploy tests talk to. QG_DOCKER_HOST (or DOCKER_HOST) names one to use; else the
// system's (/var/run/docker.sock) when it answers; else the test starts a dockerd of its own (as root)
// and stops it at the end. Its socket, exec root and pid file are in a temporary folder; its data root
// is kept in the deploy cache (QG_DEPLOY_CACHE, default ~/.cache/qris-gateway-deploy/docker), so the
// stand-in base images (stand-ins.ts) survive from one run to the next. One run at a time uses it.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from './run.js';

export interface DockerDaemon {
  /** unix:///... for DOCKER_HOST. */
  host: string;
  /** Whether this run started it (then only this run's work is on it, and stand-ins may be tagged there). */
  own: boolean;
  stop(): Promise<void>;
}

export function deployCache(): string {
  const dir = process.env.QG_DEPLOY_CACHE ?? join(homedir(), '.cache', 'qris-gateway-deploy');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The environment for docker, docker-compose and the stand-in script: the daemon, nothing else changed. */
export function dockerEnv(host: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, DOCKER_HOST: host, ...extra };
}

async function answers(host: string): Promise<boolean> {
  const r = await run('docker', ['version', '--format', '{{.Server.Version}}'], {
    env: dockerEnv(host),
    allowFailure: true,
    timeoutMs: 20_000,
  });
  return r.code === 0;
}

export async function startDocker(): Promise<DockerDaemon> {
  const given = process.env.QG_DOCKER_HOST ?? process.env.DOCKER_HOST;
  if (given) {
    if (!(await answers(given))) throw new Error(`no Docker daemon answers at ${given}`);
    return { host: given, own: false, stop: async () => {} };
  }
  const system = 'unix:///var/run/docker.sock';
  if (existsSync('/var/run/docker.sock') && (await answers(system)))
    return { host: system, own: false, stop: async () => {} };
  return startOwnDaemon();
}

/**
 * Containers, volumes and networks (other than Docker's own three) on the daemon, or only those with the
 * label `label` (`key=value`); each is removed.
 */
export async function leftovers(daemon: DockerDaemon, label?: string): Promise<string[]> {
  const env = dockerEnv(daemon.host);
  const filter = label === undefined ? [] : ['--filter', `label=${label}`];
  const list = async (args: string[]) =>
    (await run('docker', [...args, ...filter], { env })).stdout.split('\n').filter((line) => line !== '');
  const containers = await list(['ps', '-aq']);
  for (const id of containers) await run('docker', ['rm', '--force', '--volumes', id], { env, allowFailure: true });
  const volumes = await list(['volume', 'ls', '-q']);
  for (const name of volumes) await run('docker', ['volume', 'rm', '--force', name], { env, allowFailure: true });
  const networks = (await list(['network', 'ls', '--format', '{{.Name}}'])).filter(
    (name) => !['bridge', 'host', 'none'].includes(name),
  );
  for (const name of networks) await run('docker', ['network', 'rm', name], { env, allowFailure: true });
  return [
    ...containers.map((c) => `container ${c}`),
    ...volumes.map((v) => `volume ${v}`),
    ...networks.map((n) => `network ${n}`),
  ];
}

async function startOwnDaemon(): Promise<DockerDaemon> {
  const dir = mkdtempSync(join(tmpdir(), 'qg-dockerd-'));
  const dataRoot = join(deployCache(), 'docker');
  mkdirSync(dataRoot, { recursive: true });
  const host = `unix://${join(dir, 'docker.sock')}`;
  const log = openSync(join(dir, 'dockerd.log'), 'a');
  const child: ChildProcess = spawn(
    'dockerd',
    [
      '--host',
      host,
      '--data-root',
      dataRoot,
      '--exec-root',
      join(dir, 'exec'),
      '--pidfile',
      join(dir, 'docker.pid'),
      // No default bridge: the tests use the networks compose makes and the host network for builds. Their
      // own address pool keeps them clear of another daemon's networks on this machine.
      '--bridge',
      'none',
      '--default-address-pool',
      'base=10.213.0.0/16,size=24',
    ],
    { stdio: ['ignore', log, log], detached: true },
  );
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.on('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const deadline = Date.now() + 60_000;
  while (!(await answers(host))) {
    if (exited || Date.now() > deadline) {
      const tail = readFileSync(join(dir, 'dockerd.log'), 'utf8').slice(-3000);
      child.kill('SIGKILL');
      throw new Error(`dockerd did not start (${exited ? 'it exited' : 'no answer in 60 s'}):\n${tail}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return {
    host,
    own: true,
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        const timeout = setTimeout(() => child.kill('SIGKILL'), 30_000);
        await exit;
        clearTimeout(timeout);
      }
      // dockerd leaves its exec root's network namespace mounted (exec/netns/default): unmounted first.
      const mounts = readFileSync('/proc/self/mounts', 'utf8')
        .split('\n')
        .map((line) => line.split(' ')[1] ?? '')
        .filter((path) => path.startsWith(`${dir}/`))
        .reverse();
      for (const path of mounts) await run('umount', ['-l', path], { allowFailure: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
