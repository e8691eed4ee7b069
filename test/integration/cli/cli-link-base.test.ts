// issue 37 §8: the links a CLI command prints use the base the server uses (PUBLIC_BASE_URL, else HOST
// and PORT, from the environment, then `.env`, then the defaults). Without PUBLIC_BASE_URL the command
// cannot know the port a server was started with on its own command line, so it says once, on stderr,
// which base it used and where that came from. Real processes, in a folder of their own.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { openRuntime } from '../../../src/runtime.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { createInput, freshDatabaseUrl, seedMerchant } from '../../helpers/context.js';
import { runCommand } from '../../helpers/processes.js';

let dir: string;
let drop: () => Promise<void>;
let databaseUrl: string;
let trxid: string;

// ENV_FILE unset: the folder's `.env`, when a test writes one, is what the command reads.
const run = (args: string[], env: Record<string, string>) =>
  runCommand(args, { ENV_FILE: '', DATABASE_URL: databaseUrl, ...env }, 120_000, null, dir);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'qg-link-base-'));
  const fresh = await freshDatabaseUrl(dir);
  drop = fresh.drop;
  databaseUrl = fresh.url;
  const runtime = await openRuntime(loadConfig({ DATABASE_URL: databaseUrl }));
  try {
    const seeded = await seedMerchant(runtime.deps);
    trxid = (await createTransaction(runtime.deps, createInput(seeded.merchant.id, 25_000))).transaction.id;
  } finally {
    await runtime.close();
  }
  // The first run after an edit compiles dist/ and says so on stderr: done here, so the runs below print only their own.
  const warm = await run(['--version'], {});
  expect(warm.code, warm.stderr).toBe(0);
}, 180_000);

afterAll(async () => {
  await drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the links a CLI command prints', () => {
  it('use PORT without PUBLIC_BASE_URL, and a note on stderr says so', async () => {
    const shown = await run(['transactions', 'show', trxid], { PORT: '4301' });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`checkout  http://127.0.0.1:4301/checkout/${trxid}`);
    expect(shown.stderr).toBe(
      'note: links use http://127.0.0.1:4301 (PUBLIC_BASE_URL is not set; from PORT): set PUBLIC_BASE_URL in .env if the server answers elsewhere\n',
    );

    // --json keeps stdout one object; the note is still on stderr, once however many links were made.
    const listed = await run(['transactions', 'list', '--json'], { PORT: '4301' });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).items[0].checkout_url).toBe(`http://127.0.0.1:4301/checkout/${trxid}`);
    expect(listed.stderr.match(/^note: /gm)).toHaveLength(1);

    // Nothing set at all: the defaults, named as such.
    const defaults = await run(['transactions', 'show', trxid, '--json'], {});
    expect(JSON.parse(defaults.stdout).checkout_url).toBe(`http://127.0.0.1:3000/checkout/${trxid}`);
    expect(defaults.stderr).toMatch(
      /^note: links use http:\/\/127\.0\.0\.1:3000 \(PUBLIC_BASE_URL is not set; from the default HOST and PORT\)/,
    );
  }, 120_000);

  it('use PUBLIC_BASE_URL from .env, without a note; PORT from .env is named as from it', async () => {
    writeFileSync(join(dir, '.env'), 'PORT=4302\n');
    const fromFile = await run(['transactions', 'show', trxid], {});
    expect(fromFile.stdout).toContain(`http://127.0.0.1:4302/checkout/${trxid}`);
    expect(fromFile.stderr).toMatch(/\(PUBLIC_BASE_URL is not set; from PORT in \.env\)/);

    writeFileSync(join(dir, '.env'), 'PUBLIC_BASE_URL=https://pay.example.com/\n');
    const shown = await run(['transactions', 'show', trxid], { PORT: '4301' });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`checkout  https://pay.example.com/checkout/${trxid}`);
    expect(shown.stdout).not.toContain('4301');
    expect(shown.stderr).toBe('');
  }, 120_000);
});
