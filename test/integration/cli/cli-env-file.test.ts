// issue 26, item 1: one source of settings for the server and the CLI. A `.env` file in the working
// directory is read by `serve` and by every command, real processes started in a temporary folder; the
// process environment wins over the file; a malformed line stops the command, naming the line.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../../helpers/context.js';
import { bin, childEnv, freePort, runCommand } from '../../helpers/processes.js';

let dir: string;
let dropDatabase: () => Promise<void> = async () => {};
let server: ChildProcess | null = null;
let serverOut = '';
let port: number;

// Nothing but ENV_FILE (unset) in the environment, so the folder's `.env` is what the command reads.
const run = (args: string[], env: Record<string, string> = {}) =>
  runCommand(args, { ENV_FILE: '', ...env }, 120_000, null, dir);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'qg-envfile-'));
  const database = await freshDatabaseUrl(dir);
  dropDatabase = database.drop;
  port = await freePort();
  writeFileSync(
    join(dir, '.env'),
    [
      '# the shop walkthrough, on one machine',
      `DATABASE_URL='${database.url}'`,
      `PORT=${port}`,
      'HOST=127.0.0.1',
      'export WEBHOOK_ALLOW_NETWORKS="127.0.0.0/8"   # the shop listens on loopback',
      '',
      'LOG_LEVEL=warn',
    ].join('\n'),
  );
});

afterAll(async () => {
  if (server && server.exitCode === null) server.kill('SIGKILL');
  await dropDatabase();
  rmSync(dir, { recursive: true, force: true });
});

describe('a .env file in the working directory', () => {
  it('is read by serve and by the CLI, and the environment wins over it', async () => {
    server = spawn(process.execPath, [bin, 'serve'], {
      cwd: dir,
      env: childEnv({ ENV_FILE: '' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.setEncoding('utf8').on('data', (c: string) => (serverOut += c));
    server.stderr!.setEncoding('utf8').on('data', (c: string) => (serverOut += c));
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (server.exitCode !== null) throw new Error(`server exited:\n${serverOut}`);
      const up = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (up && /sk_test_\w+/.test(serverOut)) break;
      if (Date.now() > deadline) throw new Error(`server did not start on PORT from .env:\n${serverOut}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const merchant = /sandbox merchant \((mch_\w+)\)/.exec(serverOut)![1]!;
    const key = /^ {2}(sk_test_\w+)$/m.exec(serverOut)![1]!;
    // Started outside the checkout, the banner's key hint names the entry point by its path, and works
    // from this folder as printed (the same .env gives it the same database).
    const hint = new RegExp(
      `^ {2}node ${bin.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} (key create --merchant ${merchant} --mode test)$`,
      'm',
    ).exec(serverOut);
    expect(hint, serverOut).not.toBeNull();
    const another = await run([...hint![1]!.split(' '), '--json']);
    expect(another.code, another.stderr + another.stdout).toBe(0);
    expect(JSON.parse(another.stdout).key).toMatch(/^sk_test_/);

    // The walkthrough's webhook on 127.0.0.1 passes: WEBHOOK_ALLOW_NETWORKS came from the file.
    const added = await run([
      'webhooks',
      'add',
      '--merchant',
      merchant,
      '--url',
      'http://127.0.0.1:8080/webhooks/qris',
      '--json',
    ]);
    expect(added.code, added.stderr + added.stdout).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      id: expect.stringMatching(/^we_/),
      secret: expect.stringMatching(/^whsec_/),
    });

    // The environment wins: another allow-list refuses the same URL.
    const refused = await run(
      ['webhooks', 'add', '--merchant', merchant, '--url', 'http://127.0.0.1:8080/webhooks/qris', '--json'],
      {
        WEBHOOK_ALLOW_NETWORKS: '10.0.0.0/8',
      },
    );
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'invalid_parameter', param: 'url' });

    // A transaction made through the server is shown by the CLI with the server's URL (PORT from the file).
    const created = await fetch(`${base}/api/payment-gateway/cqris?amount=25000`, { headers: { 'X-Api-Key': key } });
    expect(created.status).toBe(200);
    const trxid = ((await created.json()) as { data: { trxid: string } }).data.trxid;
    const shown = await run(['transactions', 'show', trxid, '--json']);
    expect(shown.code, shown.stderr + shown.stdout).toBe(0);
    expect(JSON.parse(shown.stdout).checkout_url).toBe(`${base}/checkout/${trxid}`);
    const overridden = await run(['transactions', 'show', trxid, '--json'], {
      PUBLIC_BASE_URL: 'https://pay.example.com',
    });
    expect(JSON.parse(overridden.stdout).checkout_url).toBe(`https://pay.example.com/checkout/${trxid}`);

    server.kill('SIGTERM');
    await new Promise((resolve) => server!.once('close', resolve));
  }, 240_000);

  it('ENV_FILE names another file; a malformed line stops the command, naming the file and the line', async () => {
    writeFileSync(join(dir, 'bad.env'), `# comment\nPORT=${port}\nWEBHOOK_ALLOW_NETWORKS 127.0.0.0/8\n`);
    const bad = await run(['transactions', 'show', 'trx_0000000000000000', '--json'], { ENV_FILE: 'bad.env' });
    expect(bad.code).toBe(1);
    const error = JSON.parse(bad.stdout).error;
    expect(error.code).toBe('invalid_env_file');
    expect(error.message).toMatch(/^bad\.env, line 3: expected KEY=value/);

    const missing = await run(['transactions', 'list'], { ENV_FILE: 'nowhere.env' });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: invalid_env_file: ENV_FILE=nowhere\.env: cannot read it \(ENOENT\)/);
    expect(missing.stderr).not.toMatch(/internal_error/);
  }, 120_000);
});
