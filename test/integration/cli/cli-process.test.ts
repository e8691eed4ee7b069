// The real entry point (bin/qris-gateway.mjs, which builds dist/ when sources are newer) as child
// processes: what an operator runs, signals and all.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/storage/database.js';
import { freshDatabaseUrl, onPostgres, vectors } from '../../helpers/context.js';
import { bin, childEnv, freePort, root, runCommand as runBin } from '../../helpers/processes.js';

function onlyJsonLine(stdout: string): Record<string, any> {
  const lines = stdout.split('\n');
  expect(lines.at(-1)).toBe('');
  expect(lines).toHaveLength(2);
  const value: unknown = JSON.parse(lines[0]!);
  expect(value).toBeTypeOf('object');
  expect(Array.isArray(value)).toBe(false);
  return value as Record<string, any>;
}

async function countRows(databaseUrl: string): Promise<{ merchants: number; keys: number }> {
  const database = openDatabase(databaseUrl);
  try {
    const merchants = (await database.selectFrom('merchants').select('id').execute()).length;
    const keys = (await database.selectFrom('api_keys').select('id').execute()).length;
    return { merchants, keys };
  } finally {
    await database.close();
  }
}

class Server {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, [bin, 'serve'], {
      cwd: root,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.setEncoding('utf8').on('data', (c: string) => (this.stdout += c));
    this.child.stderr!.setEncoding('utf8').on('data', (c: string) => (this.stderr += c));
    this.exited = new Promise((resolve) => this.child.on('close', (code, signal) => resolve({ code, signal })));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves once `ready()` holds, checking every 50 ms; fails if the process exits or time runs out. */
  async waitFor<T>(what: string, ready: () => Promise<T | null> | T | null, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await ready();
      if (value !== null) return value;
      if (!this.running)
        throw new Error(`server exited while waiting for ${what}\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}\nstdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop(timeoutMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`server did not exit within ${timeoutMs} ms of SIGTERM`)), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  kill(): void {
    if (this.running) this.child.kill('SIGKILL');
  }
}

// The first start's banner: where it runs, its docs, the sandbox key (twice: alone and in the curl line)
// and the command that makes another key.
const BANNER =
  /^ {2}API docs: {2}(http:\/\/\S+\/docs)\n[\s\S]*^ {2}(sk_test_[0-9A-Za-z]{40})\n[\s\S]*^ {2}curl -H 'X-Api-Key: (sk_test_[0-9A-Za-z]{40})' '(http:\/\/\S+\/api\/payment-gateway\/cqris\?amount=10000)'\n[\s\S]*^ {2}npm run -s cli -- key create --merchant (mch_\w+) --mode test\n/m;
// A later start's: no key, the command that makes a new one.
const LATER_BANNER =
  /^Sandbox merchant (mch_\w+): its test key was shown on the first start\. Key not saved\? Make another:\n {2}npm run -s cli -- (key create --merchant mch_\w+ --mode test)\n/m;

let dir: string;
const servers: Server[] = [];
const drops: Array<() => Promise<void>> = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'qg-proc-'));
});

afterAll(async () => {
  for (const s of servers) s.kill();
  for (const drop of drops) await drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('qris-gateway as a process', () => {
  it('merchant add --json prints exactly one JSON line (building dist/ first if needed)', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'cli.sqlite')}` };
    const r = await runBin(['merchant', 'add', '--name', 'X', '--qris', vectors.vectors[0]!.static, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const body = onlyJsonLine(r.stdout);
    expect(body.id).toMatch(/^mch_[0-9A-Za-z]{16}$/);
    expect(body.merchant_name).toBe('Warung Contoh');

    // A failure exits non-zero with the JSON error as the only line.
    const bad = await runBin(['merchant', 'add', '--name', 'X', '--qris', 'hello world', '--json'], env);
    expect(bad.code).toBe(1);
    expect(onlyJsonLine(bad.stdout).error.code).toBe('invalid_qris');
  }, 150_000);

  it('serves, prints a banner on every start (the sandbox key only on the first), and shuts down cleanly on SIGTERM', async () => {
    const port = await freePort();
    const database = await freshDatabaseUrl(join(dir));
    drops.push(database.drop);
    const databaseUrl = database.url;
    const env = { PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl };
    const base = `http://127.0.0.1:${port}`;
    // The kind and where, never a user or password (the suite's PostgreSQL is 127.0.0.1:5432/test).
    const databaseLine = onPostgres
      ? `PostgreSQL, ${new URL(databaseUrl).host}${new URL(databaseUrl).pathname}`
      : `SQLite, ${join(dir, 'gateway.db')}`;

    // A first start that cannot bind fails, and must not have used up the one showing of the key.
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      const blocked = await runBin(['serve'], env, 60_000);
      expect(blocked.code).toBe(1);
      expect(blocked.stderr).toMatch(/EADDRINUSE/);
      expect(blocked.stdout).not.toMatch(/sk_test_/);
      expect(await countRows(databaseUrl)).toEqual({ merchants: 0, keys: 0 });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }

    const first = new Server(env);
    servers.push(first);
    const [, docs, key, curlKey, curlUrl, demoMerchant] = await first.waitFor(
      'the first-run banner',
      () => BANNER.exec(first.stdout),
      120_000,
    );
    expect(first.stdout).toContain(
      `\nqris-gateway is running at ${base}\n  API docs:  ${base}/docs\n  Console:   ${base}/dashboard\n  Database:  ${databaseLine}\n`,
    );
    expect(first.stdout).toContain(`Created a sandbox merchant (${demoMerchant}) and a test key, shown only now:`);
    expect(docs).toBe(`${base}/docs`);
    expect(curlKey).toBe(key);
    expect(curlUrl).toBe(`${base}/api/payment-gateway/cqris?amount=10000`);
    expect(first.stdout.match(/sk_test_[0-9A-Za-z]{40}/g)).toHaveLength(2);

    // The curl line of the banner works as printed.
    const created = await fetch(curlUrl!, { headers: { 'X-Api-Key': key! } });
    expect(created.status, await created.clone().text()).toBe(200);
    const tx = ((await created.json()) as { data: { trxid: string; status: string; total_amount: number } }).data;
    expect(tx.status).toBe('pending');
    expect(tx.trxid).toMatch(/^trx_/);
    expect((await fetch(docs!)).status).toBe(200);

    // The built server finds the checkout page's files (copied into dist/) at the hashed URLs the
    // page names, cacheable for good, and byte for byte what src/web/assets/ holds.
    const page = await (await fetch(`${base}/checkout/${tx.trxid}`)).text();
    const hashed = [...page.matchAll(/"(\/checkout\/assets\/checkout\.[0-9a-f]{12}\.(?:css|js))"/g)].map((m) => m[1]!);
    expect(hashed).toHaveLength(2);
    for (const url of hashed) {
      const res = await fetch(base + url);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const file = url.replace(/\.[0-9a-f]{12}\./, '.').slice('/checkout/assets/'.length);
      expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(root, 'src', 'web', 'assets', file)))).toBe(
        true,
      );
    }

    // The CLI pays it through the same database while the server runs.
    const paid = await runBin(['pay', tx.trxid, '--json'], { DATABASE_URL: databaseUrl });
    expect(paid.code, paid.stderr).toBe(0);
    expect(onlyJsonLine(paid.stdout)).toMatchObject({ trxid: tx.trxid, status: 'paid', total_amount: tx.total_amount });

    const status = await fetch(`${base}/api/payment-gateway/cstatus?trxid=${tx.trxid}`, {
      headers: { 'X-Api-Key': key! },
    });
    expect(status.status).toBe(200);
    const seen = ((await status.json()) as { data: { status: string; payment: { source: string } | null } }).data;
    expect(seen.status).toBe('paid');
    expect(seen.payment?.source).toBe('simulator');

    // Code 0: a graceful stop, not one cut at SHUTDOWN_TIMEOUT_MS (15 s). It waits for this test's
    // idle fetch connection to reach its keep-alive time (the client closes it after 4 s).
    expect(await first.stop(15_000)).toEqual({ code: 0, signal: null });

    // Second start on the same database: the demo merchant exists, so no new merchant or key; the banner
    // still says where it runs and how to make a new key, and that command works as printed.
    const second = new Server(env);
    servers.push(second);
    const [, laterMerchant, keyCreate] = await second.waitFor(
      'the banner of a later start',
      () => LATER_BANNER.exec(second.stdout),
      60_000,
    );
    expect(laterMerchant).toBe(demoMerchant);
    expect(second.stdout).toContain(
      `\nqris-gateway is running at ${base}\n  API docs:  ${base}/docs\n  Console:   ${base}/dashboard\n  Database:  ${databaseLine}\n`,
    );
    expect(second.stdout).not.toMatch(/sk_(test|live)_/);
    expect(second.stdout).not.toContain('Created a sandbox merchant');
    // The old key still works against the restarted server.
    const again = await fetch(`${base}/api/payment-gateway/cstatus?trxid=${tx.trxid}`, {
      headers: { 'X-Api-Key': key! },
    });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { data: { status: string } }).data.status).toBe('paid');
    const made = await runBin([...keyCreate!.split(' '), '--json'], { DATABASE_URL: databaseUrl });
    expect(made.code, made.stderr).toBe(0);
    const newKey = onlyJsonLine(made.stdout).key as string;
    expect(newKey).toMatch(/^sk_test_/);
    expect(
      (await fetch(`${base}/api/payment-gateway/cstatus?trxid=${tx.trxid}`, { headers: { 'X-Api-Key': newKey } }))
        .status,
    ).toBe(200);

    expect(await second.stop(15_000)).toEqual({ code: 0, signal: null });
    expect(await countRows(databaseUrl)).toEqual({ merchants: 1, keys: 2 });
  }, 240_000);
});
