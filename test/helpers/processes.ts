// Gateway processes started from the real entry point (bin/qris-gateway.mjs), for tests that need
// several instances or a process that can be killed.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { devNull } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SETTING_NAMES } from '../../src/config.js';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const bin = join(root, 'bin', 'qris-gateway.mjs');

// Every variable the gateway reads (the settings registry), the CLI's ADMIN_PASSWORD, and the suite's QG_*.
const GATEWAY_SETTING = new Set([...SETTING_NAMES, 'ADMIN_PASSWORD']);
const isGatewaySetting = (name: string): boolean => GATEWAY_SETTING.has(name) || name.startsWith('QG_');

/**
 * The parent's environment without gateway settings it may carry, plus the given ones. ENV_FILE points at
 * an empty file, so a developer's own `.env` in the repository never reaches a test's gateway; a test of
 * the `.env` file passes `ENV_FILE: ''` (unset) or a path of its own.
 */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!isGatewaySetting(k)) env[k] = v;
  }
  // As in createTestContext (context.ts): the event-loop delay shedder off unless a test sets it.
  return { ...env, ENV_FILE: devNull, OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0', ...extra };
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs one command of the real entry point to its end (the first run after an edit compiles dist/). */
export function runCommand(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 120_000,
  input: string | null = null,
  cwd = root,
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd,
      env: childEnv(env),
      stdio: [input === null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (input !== null) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`qris-gateway ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface GatewayProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `serve` and resolves once /healthz answers. */
export async function startGateway(env: Record<string, string>, args: string[] = []): Promise<GatewayProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [bin, 'serve', ...args], {
    cwd: root,
    env: childEnv({ HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited early:\n${out}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`gateway did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Whether `command --version` runs here: tests that need a tool of the machine's (prlimit, redis-server) skip without it. */
export function commandRuns(command: string): boolean {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
