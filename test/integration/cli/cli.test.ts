import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.js';
import { loadConfig } from '../../../src/config.js';
import { openRuntime, type Runtime } from '../../../src/runtime.js';
import { authenticateApiKey } from '../../../src/services/merchants/authenticate-api-key.js';
import { demoStaticQris } from '../../../src/domain/demo-qris.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import type { Mode } from '../../../src/storage/schema.js';
import { MIGRATIONS } from '../../../src/storage/migrate.js';
import { vectors } from '../../helpers/context.js';

const warung = vectors.vectors[0]!;
const sembako = vectors.vectors[1]!;
const kopi = vectors.vectors[2]!;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

let dir: string;
let env: Record<string, string>;

async function cli(...argv: string[]): Promise<Result> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => void out.push(t), err: (t) => void err.push(t) }, env);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/** --json: stdout is exactly one line holding one JSON object, and nothing else. */
function onlyJson(stdout: string): Record<string, any> {
  expect(stdout.endsWith('\n')).toBe(true);
  const lines = stdout.slice(0, -1).split('\n');
  expect(lines).toHaveLength(1);
  const value: unknown = JSON.parse(lines[0]!);
  expect(value).toBeTypeOf('object');
  expect(value).not.toBeNull();
  expect(Array.isArray(value)).toBe(false);
  return value as Record<string, any>;
}

async function jsonOk(...argv: string[]): Promise<Record<string, any>> {
  const r = await cli(...argv, '--json');
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return onlyJson(r.stdout);
}

/** A failed --json command: exit 1, the error object on stdout, nothing on stderr. */
async function jsonError(...argv: string[]): Promise<{ code: string; message: string; param?: string }> {
  const r = await cli(...argv, '--json');
  expect(r.code).toBe(1);
  expect(r.stderr).toBe('');
  const body = onlyJson(r.stdout);
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.message).toBeTypeOf('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  return body.error;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'qg-cli-'));
  // PUBLIC_BASE_URL set: without it a command that makes links notes their base on stderr (cli-link-base.test.ts).
  env = { DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, PUBLIC_BASE_URL: 'http://gateway.test' };
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('migrate', () => {
  it('creates the database and reports it as JSON', async () => {
    const body = await jsonOk('migrate');
    expect(body).toEqual({
      migrated: true,
      database: env.DATABASE_URL,
      applied: Object.keys(MIGRATIONS).sort(),
      backup: null,
    });
    expect(existsSync(join(dir, 'db.sqlite'))).toBe(true);
  });

  it('is repeatable and prints a line without --json', async () => {
    const r = await cli('migrate');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`database is up to date (${env.DATABASE_URL})\n`);
  });

  it('fails on an unreachable database without echoing its password', async () => {
    // Nothing listens on port 1, so the connection is refused at once.
    const saved = env;
    env = { DATABASE_URL: 'postgres://user:s3cret@127.0.0.1:1/qg' };
    try {
      const r = await cli('migrate', '--json');
      expect(r.code).toBe(1);
      expect(r.stdout).not.toContain('s3cret');
      expect(r.stderr).not.toContain('s3cret');
    } finally {
      env = saved;
    }
  });
});

describe('merchant add / list', () => {
  let warungId: string;

  it('prints exactly one JSON object with the new id', async () => {
    const body = await jsonOk('merchant', 'add', '--name', 'Warung A', '--qris', warung.static);
    expect(body.id).toMatch(/^mch_[0-9A-Za-z]{16}$/);
    expect(body).toMatchObject({
      name: 'Warung A',
      merchant_name: 'Warung Contoh',
      merchant_city: 'JAKARTA',
      nmid: 'ID1020000000001',
      acquirer: 'ID.CO.EXAMPLEPAY.WWW',
    });
    expect(new Date(body.created_at).toISOString()).toBe(body.created_at);
    warungId = body.id;
  });

  it('prints a readable line without --json', async () => {
    const r = await cli('merchant', 'add', '--name', 'Kopi', '--qris', kopi.static);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(
      /^created merchant mch_[0-9A-Za-z]{16} \(Kopi & Roti "Pagi", BANDUNG, NMID ID1022000000003\)\n$/,
    );
  });

  it.each(vectors.invalid.map((v) => [v.why, v.payload]))(
    'rejects an invalid QRIS (%s) as JSON',
    async (_why, payload) => {
      const error = await jsonError('merchant', 'add', '--name', 'Bad', '--qris', payload);
      expect(error.code).toBe('invalid_qris');
      expect(error.param).toBe('qris');
    },
  );

  it.each(vectors.invalid.map((v) => [v.why, v.payload]))(
    'rejects an invalid QRIS (%s) on stderr',
    async (_why, payload) => {
      const r = await cli('merchant', 'add', '--name', 'Bad', '--qris', payload);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: invalid_qris: \S.*\n$/);
    },
  );

  it('rejects a dynamic QRIS: a merchant needs its static code', async () => {
    const dynamic = warung.cases[2]!.dynamic;
    const error = await jsonError('merchant', 'add', '--name', 'Dyn', '--qris', dynamic);
    expect(error.code).toBe('invalid_qris');
    expect(error.message).toMatch(/static/);

    const r = await cli('merchant', 'add', '--name', 'Dyn', '--qris', dynamic);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: invalid_qris: .*static/);
  });

  // issue 23, finding 7: the name reaches payers' mail, so it carries no link or address.
  it('rejects a name with a link or an address', async () => {
    for (const name of ['Pulihkan di http://pulih.example', 'cs@bank.example', 'www.toko-saya.id']) {
      const error = await jsonError('merchant', 'add', '--name', name, '--qris', warung.static);
      expect(error, name).toMatchObject({
        code: 'invalid_parameter',
        param: 'name',
        message: expect.stringMatching(/link or an address/),
      });
    }
  });

  it('rejects an empty name', async () => {
    const error = await jsonError('merchant', 'add', '--name', '   ', '--qris', warung.static);
    expect(error).toMatchObject({ code: 'invalid_parameter', param: 'name' });
  });

  it('fails a usage error (missing --qris) without printing on stdout', async () => {
    const r = await cli('merchant', 'add', '--name', 'X', '--json');
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/--qris/);
  });

  it('lists the merchants created, and none of the rejected ones', async () => {
    const body = await jsonOk('merchant', 'list');
    expect(Object.keys(body)).toEqual(['items']);
    expect(body.items.map((m: { name: string }) => m.name)).toEqual(['Warung A', 'Kopi']);
    expect(body.items[0]).toMatchObject({ id: warungId, merchant_name: 'Warung Contoh', merchant_city: 'JAKARTA' });

    const r = await cli('merchant', 'list');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${warungId}  Warung A  (Warung Contoh, JAKARTA, NMID ID1020000000001)\n`);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it("shows each merchant's static QRIS: always in --json, under its line with --payload", async () => {
    const body = await jsonOk('merchant', 'list');
    expect(body.items.map((m: { qris: string }) => m.qris)).toEqual([warung.static, kopi.static]);
    const r = await cli('merchant', 'list', '--payload');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `${warungId}  Warung A  (Warung Contoh, JAKARTA, NMID ID1020000000001)\n    ${warung.static}\n`,
    );
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(4);
  });

  // issue 26, item 10: the same sticker saved twice split one till's payments between two merchants.
  it('refuses a second merchant with the same NMID (409 duplicate_nmid, naming the first) unless --allow-duplicate-nmid, which is audited', async () => {
    const error = await jsonError('merchant', 'add', '--name', 'Warung B', '--qris', warung.static);
    expect(error).toMatchObject({ code: 'duplicate_nmid', param: 'qris' });
    expect(error.message).toBe(
      `a merchant with NMID ID1020000000001 is already saved on this gateway: Warung A (${warungId})`,
    );
    const r = await cli('merchant', 'add', '--name', 'Warung B', '--qris', warung.static);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: duplicate_nmid: a merchant with NMID ID1020000000001 is already saved/);
    expect((await jsonOk('merchant', 'list')).items.map((m: { name: string }) => m.name)).toEqual(['Warung A', 'Kopi']);

    const saved = await jsonOk(
      'merchant',
      'add',
      '--name',
      'Warung B',
      '--qris',
      warung.static,
      '--allow-duplicate-nmid',
    );
    expect(saved).toMatchObject({ name: 'Warung B', nmid: 'ID1020000000001' });
    const runtime = await openRuntime(loadConfig(env));
    try {
      const audit = await runtime.deps.db
        .selectFrom('audit_log')
        .select(['action', 'details'])
        .where('subject_id', '=', saved.id)
        .execute();
      expect(audit).toHaveLength(1);
      expect(audit[0]!.action).toBe('merchant.add');
      expect(JSON.parse(audit[0]!.details!)).toMatchObject({ nmid: 'ID1020000000001', duplicate_nmid_of: [warungId] });
    } finally {
      await runtime.close();
    }
    // The help names the option.
    expect((await cli('merchant', 'add', '--help')).stdout).toContain('--allow-duplicate-nmid');
  });
});

describe('keys', () => {
  let runtime: Runtime;
  let merchantId: string;
  let testKey: { id: string; key: string };
  let liveKey: { id: string; key: string };

  beforeAll(async () => {
    merchantId = (await jsonOk('merchant', 'add', '--name', 'Keyed', '--qris', sembako.static)).id;
    runtime = await openRuntime(loadConfig(env));
  });
  afterAll(async () => runtime.close());

  it('creates a test key shown once', async () => {
    const body = await jsonOk('key', 'create', '--merchant', merchantId, '--mode', 'test');
    expect(body.key).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    expect(body.id).toMatch(/^key_[0-9A-Za-z]{16}$/);
    expect(body).toMatchObject({ merchant_id: merchantId, mode: 'test', revoked_at: null });
    expect(body.key.startsWith(body.prefix.replace(/…$/, ''))).toBe(true);
    testKey = { id: body.id, key: body.key };
  });

  it('creates a live key', async () => {
    const body = await jsonOk('key', 'create', '--merchant', merchantId, '--mode', 'live');
    expect(body.key).toMatch(/^sk_live_[0-9A-Za-z]{40}$/);
    expect(body).toMatchObject({ merchant_id: merchantId, mode: 'live' });
    liveKey = { id: body.id, key: body.key };
  });

  it('prints the key on its own line without --json', async () => {
    const r = await cli('key', 'create', '--merchant', merchantId, '--mode', 'test');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^sk_test_[0-9A-Za-z]{40}\n\(key key_[0-9A-Za-z]{16}; /);
  });

  it('refuses an unknown merchant', async () => {
    const error = await jsonError('key', 'create', '--merchant', 'mch_doesnotexist000', '--mode', 'test');
    expect(error.code).toBe('merchant_not_found');

    const r = await cli('key', 'create', '--merchant', 'mch_doesnotexist000', '--mode', 'test');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: merchant_not_found: /);
  });

  it('refuses a bad or missing mode', async () => {
    for (const args of [['--mode', 'prod'], ['--mode', 'TEST'], []]) {
      const r = await cli('key', 'create', '--merchant', merchantId, ...args, '--json');
      expect(r.code).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/mode/);
    }
  });

  it('lists keys without the secret or its hash', async () => {
    const r = await cli('key', 'list', '--json');
    expect(r.code).toBe(0);
    const body = onlyJson(r.stdout);
    const ids = body.items.map((k: { id: string }) => k.id);
    expect(ids).toEqual(expect.arrayContaining([testKey.id, liveKey.id]));
    for (const { key } of [testKey, liveKey]) {
      const hash = createHash('sha256').update(key).digest('hex');
      expect(r.stdout).not.toContain(key);
      expect(r.stdout).not.toContain(key.slice(8));
      expect(r.stdout).not.toContain(hash);
    }
    for (const item of body.items) {
      expect(Object.keys(item).sort()).toEqual(['created_at', 'id', 'merchant_id', 'mode', 'prefix', 'revoked_at']);
    }

    const human = await cli('key', 'list');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(testKey.id);
    for (const { key } of [testKey, liveKey]) {
      expect(human.stdout).not.toContain(key);
      expect(human.stdout).not.toContain(createHash('sha256').update(key).digest('hex'));
    }
  });

  it('filters the list by merchant', async () => {
    const body = await jsonOk('key', 'list', '--merchant', merchantId);
    expect(body.items.length).toBeGreaterThanOrEqual(3);
    expect(body.items.every((k: { merchant_id: string }) => k.merchant_id === merchantId)).toBe(true);
    expect((await jsonOk('key', 'list', '--merchant', 'mch_nobody')).items).toEqual([]);
  });

  it('revokes a key so that it no longer authenticates', async () => {
    await expect(authenticateApiKey(runtime.deps, testKey.key)).resolves.toMatchObject({
      keyId: testKey.id,
      merchantId,
      mode: 'test',
    });

    const body = await jsonOk('key', 'revoke', testKey.id);
    expect(body.id).toBe(testKey.id);
    expect(body.revoked_at).toEqual(expect.any(String));
    expect(JSON.stringify(body)).not.toContain(testKey.key);

    await expect(authenticateApiKey(runtime.deps, testKey.key)).rejects.toMatchObject({ code: 'invalid_api_key' });
    // Only that key: the merchant's other key still works.
    await expect(authenticateApiKey(runtime.deps, liveKey.key)).resolves.toMatchObject({
      keyId: liveKey.id,
      mode: 'live',
    });

    // Revoking again changes nothing, in particular not the revocation time.
    const again = await jsonOk('key', 'revoke', testKey.id);
    expect(again.revoked_at).toBe(body.revoked_at);

    const listed = (await jsonOk('key', 'list')).items.find((k: { id: string }) => k.id === testKey.id);
    expect(listed.revoked_at).toBe(body.revoked_at);
  });

  it('reports an unknown key id', async () => {
    expect((await jsonError('key', 'revoke', 'key_nope')).code).toBe('not_found');
  });
});

describe('qris sample', () => {
  it('prints a static payload that decode reads and merchant add accepts: the sandbox merchant', async () => {
    const r = await cli('qris', 'sample');
    expect(r.code).toBe(0);
    const payload = r.stdout.trimEnd();
    expect(r.stdout).toBe(`${payload}\n`);
    expect(await jsonOk('qris', 'sample')).toEqual({
      payload,
      merchant_name: 'Toko Demo Sandbox',
      merchant_city: 'JAKARTA',
      nmid: 'ID1020000000001',
    });
    expect(await jsonOk('qris', 'decode', payload)).toMatchObject({
      initiation: 'static',
      merchantName: 'Toko Demo Sandbox',
      crc: payload.slice(-4),
    });
    // The payload the first start's sandbox merchant is made from (ensureDemoMerchant).
    expect(payload).toBe(demoStaticQris());
  });
});

describe('qris decode', () => {
  it('decodes a static payload as JSON', async () => {
    const body = await jsonOk('qris', 'decode', warung.static);
    expect(body).toMatchObject({
      payload: warung.static,
      initiation: 'static',
      amount: null,
      merchantName: 'Warung Contoh',
      merchantCity: 'JAKARTA',
      postalCode: '10110',
      countryCode: 'ID',
      currency: '360',
      mcc: '5812',
      nmid: 'ID1020000000001',
      acquirer: 'ID.CO.EXAMPLEPAY.WWW',
      criteria: 'UMI',
      crc: '2C3B',
    });
    const tags = body.fields.map((f: { tag: string }) => f.tag);
    expect(tags).toEqual(['00', '01', '26', '51', '52', '53', '58', '59', '60', '61', '62', '63']);
    const account = body.fields.find((f: { tag: string }) => f.tag === '26');
    expect(account.name).toBe('merchant account information');
    expect(account.children).toEqual([
      { tag: '00', name: 'globally unique identifier (reverse domain)', value: 'ID.CO.EXAMPLEPAY.WWW' },
      { tag: '01', name: 'merchant PAN', value: '936000000000000001' },
      { tag: '02', name: 'merchant id', value: '000000000000001' },
      { tag: '03', name: 'merchant criteria', value: 'UMI' },
    ]);
    expect(body.fields.find((f: { tag: string }) => f.tag === '59')).toEqual({
      tag: '59',
      name: 'merchant name',
      value: 'Warung Contoh',
    });
  });

  it('decodes a dynamic payload with its amount', async () => {
    const c = warung.cases.find((x) => x.amount === 10123)!;
    const body = await jsonOk('qris', 'decode', c.dynamic);
    expect(body).toMatchObject({ initiation: 'dynamic', amount: 10123, merchantName: 'Warung Contoh' });
    expect(body.fields.find((f: { tag: string }) => f.tag === '54')).toEqual({
      tag: '54',
      name: 'transaction amount',
      value: '10123',
    });
  });

  it('keeps quotes and ampersands intact', async () => {
    const body = await jsonOk('qris', 'decode', kopi.static);
    expect(body.merchantName).toBe('Kopi & Roti "Pagi"');
    expect(body.merchantCity).toBe('BANDUNG');
  });

  it('trims surrounding whitespace from a pasted payload', async () => {
    const body = await jsonOk('qris', 'decode', `  ${sembako.static}\n`);
    expect(body.merchantName).toBe('TOKO SEMBAKO MAKMUR JAYA');
  });

  it('lists the tags in human output', async () => {
    const res = await cli('qris', 'decode', warung.static);
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    const lines = res.stdout.split('\n');
    expect(lines[0]).toBe(`payload: ${warung.static}`);
    expect(lines).toContain('merchantName: Warung Contoh');
    expect(lines).toContain('amount: -');
    expect(lines).toContain('fields:');
    expect(lines).toContain('  00 payload format indicator: 01');
    expect(lines).toContain('  01 point of initiation: 11');
    expect(lines).toContain('  26 merchant account information: ');
    expect(lines).toContain('    01 merchant PAN: 936000000000000001');
    expect(lines).toContain('  59 merchant name: Warung Contoh');
    expect(lines).toContain('  60 merchant city: JAKARTA');
    expect(lines).toContain('    07 terminal label: A01');
    expect(lines).toContain('  63 CRC: 2C3B');
  });

  it.each([['garbage', 'hello world'], ...vectors.invalid.map((v) => [v.why, v.payload])])(
    'fails on %s',
    async (_why, payload) => {
      expect((await jsonError('qris', 'decode', payload!)).code).toBe('invalid_qris');
      const res = await cli('qris', 'decode', payload!);
      expect(res.code).toBe(1);
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(/^error: invalid_qris: /);
    },
  );
});

describe('pay', () => {
  let runtime: Runtime;
  let merchantId: string;

  beforeAll(async () => {
    // The fixtures hold three codes, all saved above by now: this one is saved again on purpose.
    merchantId = (await jsonOk('merchant', 'add', '--name', 'Payee', '--qris', warung.static, '--allow-duplicate-nmid'))
      .id;
    runtime = await openRuntime(loadConfig(env));
  });
  afterAll(async () => runtime.close());

  async function newTransaction(mode: Mode, amount = 25_000) {
    const { transaction } = await createTransaction(runtime.deps, {
      merchantId,
      mode,
      amount,
      email: null,
      ref: null,
      expiresInSeconds: null,
      idempotency: null,
    });
    return transaction;
  }

  async function statusOf(trxid: string) {
    return await runtime.deps.db
      .selectFrom('transactions')
      .select(['status', 'payment_id'])
      .where('id', '=', trxid)
      .executeTakeFirstOrThrow();
  }

  it('pays a test transaction', async () => {
    const tx = await newTransaction('test');
    const body = await jsonOk('pay', tx.id);
    expect(body).toMatchObject({
      trxid: tx.id,
      status: 'paid',
      mode: 'test',
      amount: 25_000,
      total_amount: tx.total_amount,
      paid_late: false,
    });
    expect(body.paid_at).toEqual(expect.any(String));
    expect(body.payment).toMatchObject({ source: 'simulator', amount: tx.total_amount });
    expect(await statusOf(tx.id)).toMatchObject({ status: 'paid', payment_id: body.payment.id });

    // Paying twice is an error, not a second payment.
    expect((await jsonError('pay', tx.id)).code).toBe('transaction_already_paid');
  });

  it('prints a readable line without --json', async () => {
    const tx = await newTransaction('test', 10_000);
    const res = await cli('pay', tx.id);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`^${tx.id} is paid: Rp`));
  });

  it('refuses a live transaction', async () => {
    const tx = await newTransaction('live');
    expect((await jsonError('pay', tx.id)).code).toBe('test_mode_only');
    const res = await cli('pay', tx.id);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^error: test_mode_only: /);
    expect(await statusOf(tx.id)).toEqual({ status: 'pending', payment_id: null });
  });

  it('reports an unknown transaction', async () => {
    expect(await jsonError('pay', 'trx_0000000000000000000000')).toMatchObject({
      code: 'transaction_not_found',
      param: 'trxid',
    });
  });

  it('rejects a malformed --amount before paying anything', async () => {
    const tx = await newTransaction('test');
    for (const amount of ['abc', '10.5', '-5', '0']) {
      expect((await jsonError('pay', tx.id, '--amount', amount)).code).toBe('invalid_amount');
    }
    expect(await statusOf(tx.id)).toEqual({ status: 'pending', payment_id: null });
  });
});

describe('usage', () => {
  it('exits 0 on --help and non-zero on an unknown command', async () => {
    const help = await cli('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/merchant/);

    const unknown = await cli('frobnicate');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/unknown command/);
  });
});
