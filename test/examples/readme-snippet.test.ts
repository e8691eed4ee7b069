// The README's client snippet ("Integrate in five minutes"), run as a reader runs it: the block marked
// `readme-snippet: pay.mjs` is copied verbatim into a fresh `npm init -y` project that installed the
// client's tarball (made with the README's `npm run -s client:pack`), and run twice with plain `node`
// against a real gateway process. Both runs must end on their own, paid.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSeededGateway, type SeededGateway } from '../helpers/seeded-gateway.js';
import { childEnv, root } from '../helpers/processes.js';

const MARKER = '<!-- readme-snippet: pay.mjs';

/** The first fenced block after the marker comment, exactly as written in README.md. */
function readmeSnippet(readme: string): string {
  const at = readme.indexOf(MARKER);
  if (at < 0) throw new Error(`README.md has no "${MARKER}" marker`);
  const block = /```js\n([\s\S]*?)```/.exec(readme.slice(at));
  if (!block) throw new Error('no ```js block follows the marker');
  return block[1]!;
}

// npm without the registry: this installs a local tarball, and audit or funding look-ups only add waits.
const npmEnv = childEnv({ npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' });

function npm(args: string[], cwd: string): string {
  const run = spawnSync('npm', args, { cwd, env: npmEnv, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`npm ${args.join(' ')} failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node pay.mjs`, killed (and the test failed by the error) if it has not ended in `ms`. */
function runSnippet(cwd: string, env: Record<string, string>, ms = 60_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['pay.mjs'], { cwd, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node pay.mjs did not end in ${ms} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, ms);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

let gateway: SeededGateway;
let project: string;

beforeAll(async () => {
  gateway = await startSeededGateway();
  // As the README says: pack the client here, then a fresh project installs the tarball.
  const packed = npm(['run', '-s', 'client:pack'], root).trim().split('\n').pop()!;
  const tarball = join(root, packed);
  expect(existsSync(tarball)).toBe(true);
  project = mkdtempSync(join(tmpdir(), 'qg-your-shop-'));
  npm(['init', '-y'], project);
  npm(['install', tarball], project);
  writeFileSync(join(project, 'pay.mjs'), readmeSnippet(readFileSync(join(root, 'README.md'), 'utf8')));
}, 180_000);

afterAll(async () => {
  if (project) rmSync(project, { recursive: true, force: true });
  await gateway?.stop();
});

describe("the README's client snippet", () => {
  it('runs as pasted in a fresh npm project, pays in the sandbox and ends; a rerun does too', async () => {
    const env = { QRIS_GATEWAY_URL: gateway.url, QRIS_API_KEY: gateway.testKey };
    const trxids: string[] = [];
    for (const attempt of [1, 2]) {
      const run = await runSnippet(project, env);
      expect({ attempt, code: run.code, stderr: run.stderr }).toEqual({ attempt, code: 0, stderr: '' });
      // What the README says it prints, line by line.
      const lines = run.stdout.trim().split('\n');
      expect(lines).toHaveLength(3);
      const pay = /^pay Rp(\d+) at (\S+\/checkout\/(trx_\w+))$/.exec(lines[0]!);
      expect(pay, lines[0]).not.toBeNull();
      expect(Number(pay![1])).toBeGreaterThan(25_000);
      expect(lines[1]).toMatch(/^QR code: \d+ bytes of PNG$/);
      expect(lines[2]).toMatch(/^paid at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      trxids.push(pay![3]!);
    }
    // Each run made a transaction of its own, and the gateway holds both as paid.
    expect(new Set(trxids).size).toBe(2);
    for (const trxid of trxids) {
      const res = await fetch(`${gateway.url}/api/payment-gateway/cstatus?trxid=${trxid}`, {
        headers: { 'X-Api-Key': gateway.testKey },
      });
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).toContain('"status":"paid"');
    }
  }, 150_000);
});
