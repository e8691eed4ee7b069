// A compose stack as an operator runs it: a folder with compose.yaml, deploy/Caddyfile and a .env made from
// .env.example, driven with `docker compose` (v2) when the CLI has it, else `docker-compose` (v1.29, what
// Debian bookworm offers; QG_COMPOSE names another). Caddy publishes on 127.0.0.1 ports of the test's
// choosing; the stack's network and volumes are made by compose and removed by `destroy()`.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerEnv, leftovers, type DockerDaemon } from './docker-daemon.js';
import { docker, REPO_ROOT } from './image.js';
import { run } from './run.js';

let composeCommand: Promise<string[]> | undefined;

/** `docker compose` when that plugin is there, else `docker-compose`. */
export function composeCli(daemon: DockerDaemon): Promise<string[]> {
  composeCommand ??= (async () => {
    if (process.env.QG_COMPOSE) return process.env.QG_COMPOSE.split(' ');
    const v2 = await run('docker', ['compose', 'version'], { env: dockerEnv(daemon.host), allowFailure: true });
    return v2.code === 0 ? ['docker', 'compose'] : ['docker-compose'];
  })();
  return composeCommand;
}

/** A free TCP port on 127.0.0.1 (free now: the stack takes it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface StackOptions {
  /** The gateway image compose runs (already built: the stack never builds). */
  image: string;
  domain: string;
  /** Lines of .env set on top of .env.example's (replacing a line that sets the same name). */
  env?: Record<string, string>;
  /** `--profile` names. */
  profiles?: string[];
  /**
   * A checkout instead: the files a server's clone has for deploy/install.sh and deploy/upgrade.sh (the
   * build's sources and deploy/ too) and no .env, which the script writes. The ports are still chosen.
   */
  checkout?: boolean;
  /** With `checkout`: a folder the test made already (a `git clone`, as the README's first line makes one), used as it is. */
  dir?: string;
}

/** What a checkout needs beside compose.yaml: the build context's files and deploy/. */
const CHECKOUT_FILES = [
  '.env.example',
  'Dockerfile',
  '.dockerignore',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build.mjs',
  'scripts/build-steps.mjs',
  'src',
  'deploy',
];

export class Stack {
  readonly dir: string;
  readonly project: string;
  httpsPort = 0;
  httpPort = 0;

  private constructor(
    private readonly daemon: DockerDaemon,
    private readonly options: StackOptions,
  ) {
    this.dir = options.dir ?? mkdtempSync(join(tmpdir(), 'qg-stack-'));
    this.project = `qgdeploy${Math.random().toString(36).slice(2, 10)}`;
  }

  /** Writes the folder (compose.yaml, deploy/Caddyfile, .env); nothing runs yet. */
  static async create(daemon: DockerDaemon, options: StackOptions): Promise<Stack> {
    const stack = new Stack(daemon, options);
    stack.httpPort = await freePort();
    stack.httpsPort = await freePort();
    if (options.checkout && options.dir) return stack;
    cpSync(join(REPO_ROOT, 'compose.yaml'), join(stack.dir, 'compose.yaml'));
    if (options.checkout) {
      for (const file of CHECKOUT_FILES)
        cpSync(join(REPO_ROOT, file), join(stack.dir, file), { recursive: true, preserveTimestamps: true });
      return stack;
    }
    mkdirSync(join(stack.dir, 'deploy'));
    cpSync(join(REPO_ROOT, 'deploy', 'Caddyfile'), join(stack.dir, 'deploy', 'Caddyfile'));
    const settings: Record<string, string> = {
      DOMAIN: options.domain,
      ACME_EMAIL: 'ops@qris-gateway.test',
      GATEWAY_IMAGE: options.image,
      CADDY_TLS: 'internal',
      HTTP_PORT: `127.0.0.1:${stack.httpPort}`,
      HTTPS_PORT: `127.0.0.1:${stack.httpsPort}`,
      ...options.env,
    };
    writeFileSync(
      join(stack.dir, '.env'),
      `${readFileSync(join(REPO_ROOT, '.env.example'), 'utf8')}# set by the deploy test\n`,
    );
    stack.setEnv(settings);
    return stack;
  }

  async compose(args: readonly string[], options: { allowFailure?: boolean; timeoutMs?: number } = {}) {
    const [cli, ...pre] = await composeCli(this.daemon);
    const profiles = (this.options.profiles ?? []).flatMap((p) => ['--profile', p]);
    return run(cli!, [...pre, '-p', this.project, '-f', join(this.dir, 'compose.yaml'), ...profiles, ...args], {
      env: dockerEnv(this.daemon.host),
      cwd: this.dir,
      timeoutMs: options.timeoutMs ?? 300_000,
      allowFailure: options.allowFailure,
    });
  }

  /** Sets lines of the stack's .env (replacing a line that sets the same name); the next `up` applies them. */
  setEnv(settings: Record<string, string>): void {
    const file = join(this.dir, '.env');
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '' && !Object.keys(settings).some((name) => line.startsWith(`${name}=`)));
    writeFileSync(file, [...lines, ...Object.entries(settings).map(([k, v]) => `${k}=${v}`), ''].join('\n'));
  }

  async up(): Promise<void> {
    await this.compose(['up', '-d', '--no-build']);
  }

  /** `down`: containers and the network go, the volumes stay. */
  async down(): Promise<void> {
    await this.compose(['down']);
  }

  /** The id of a service's container. */
  async container(service: string): Promise<string> {
    const { stdout } = await this.compose(['ps', '-q', service]);
    const id = stdout.trim().split('\n')[0];
    if (!id) throw new Error(`no container for ${service} in ${this.project}`);
    return id;
  }

  /** Runs a command in a service's container (docker exec: the same with either compose). */
  async exec(service: string, command: readonly string[], env: Record<string, string> = {}): Promise<string> {
    const id = await this.container(service);
    const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const { stdout } = await docker(this.daemon, ['exec', ...envArgs, id, ...command]);
    return stdout;
  }

  /** The gateway's CLI in its container, `--json`, parsed. */
  async cli<T = unknown>(args: readonly string[], env: Record<string, string> = {}): Promise<T> {
    return JSON.parse(await this.exec('gateway', ['qris-gateway', ...args, '--json'], env)) as T;
  }

  /** A text file of a service's container (a volume's too), read with docker cp. */
  async readText(service: string, path: string): Promise<string> {
    const id = await this.container(service);
    const { stdout } = await run('sh', ['-c', 'docker cp "$1:$2" - | tar -xO', 'sh', id, path], {
      env: dockerEnv(this.daemon.host),
    });
    return stdout;
  }

  /** Caddy's root CA (CADDY_TLS=internal), once Caddy has made it at its first start. */
  async caddyRoot(timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const pem = await this.readText('caddy', '/data/caddy/pki/authorities/local/root.crt');
        if (pem.includes('BEGIN CERTIFICATE')) return pem;
      } catch (err) {
        if (Date.now() > deadline) throw err;
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  async logs(): Promise<string> {
    const r = await this.compose(['logs', '--no-color', '--tail', '80'], { allowFailure: true });
    return r.stdout + r.stderr;
  }

  /** Everything compose made: containers, the network, the volumes; and the folder. */
  async destroy(): Promise<void> {
    const down = await this.compose(['down', '--volumes', '--remove-orphans', '--timeout', '20'], {
      allowFailure: true,
    });
    // What compose did not remove (a `down` that failed half-way: `.env` without a required value makes
    // compose refuse every command) goes by compose's project label, and the failure is printed: the
    // run's teardown still names anything left that no stack owned.
    const left = await leftovers(this.daemon, `com.docker.compose.project=${this.project}`);
    if (down.code !== 0 || left.length > 0) {
      process.stderr.write(
        `compose down of ${this.project} exited ${down.code}; removed what it left: ${left.join(', ') || 'nothing'}\n${down.stderr.slice(-2000)}\n`,
      );
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
