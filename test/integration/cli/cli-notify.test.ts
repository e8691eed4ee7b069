// `notify add|list|test|remove` (the contract's commands), in-process through runCli against a real
// database, with the Telegram test server of the alert tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.js';
import { BOT_TOKEN, DiscordServer, TelegramServer } from '../../helpers/chat-services.js';
import { createTestContext, seedMerchant, type Seeded, type TestContext } from '../../helpers/context.js';

let t: TestContext;
let seeded: Seeded;
let other: Seeded;
let telegram: TelegramServer;
let discord: DiscordServer;
let env: Record<string, string>;

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (s) => void out.push(s), err: (s) => void err.push(s) }, env);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/** --json: exit 0 and exactly one line holding one JSON object. */
async function jsonOk(...argv: string[]): Promise<Record<string, any>> {
  const r = await cli(...argv, '--json');
  expect(r.stderr).toBe('');
  expect(r.code, r.stdout).toBe(0);
  const lines = r.stdout.split('\n');
  expect(lines).toHaveLength(2);
  return JSON.parse(lines[0]!);
}

async function jsonError(...argv: string[]): Promise<{ code: string; message: string; param?: string }> {
  const r = await cli(...argv, '--json');
  expect(r.code).toBe(1);
  return JSON.parse(r.stdout).error;
}

beforeAll(async () => {
  [telegram, discord] = await Promise.all([TelegramServer.start(), DiscordServer.start()]);
  telegram.tokens.add(BOT_TOKEN);
  t = await createTestContext();
  seeded = await seedMerchant(t.deps, 0, 'Warung');
  other = await seedMerchant(t.deps, 1, 'Sembako');
  env = {
    DATABASE_URL: t.databaseUrl,
    QRIS_OPERATOR: 'ops@test',
    WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8',
    TELEGRAM_API_URL: telegram.url,
  };
});
afterAll(async () => {
  await t?.close();
  await Promise.all([telegram?.close(), discord?.close()]);
});

describe('notify', () => {
  it('add telegram prints the channel with its token masked, audited', async () => {
    const body = await jsonOk(
      'notify',
      'add',
      '--merchant',
      seeded.merchant.id,
      '--type',
      'telegram',
      '--bot-token',
      BOT_TOKEN,
      '--chat-id',
      '4242',
    );
    expect(body).toMatchObject({
      merchant_id: seeded.merchant.id,
      type: 'telegram',
      language: 'id',
      chat_id: '4242',
      status: 'active',
    });
    expect(body.id).toMatch(/^nch_/);
    expect(body.secret_masked).toBe(`7012345678:••••${BOT_TOKEN.slice(-4)}`);
    expect(JSON.stringify(body)).not.toContain(BOT_TOKEN.split(':')[1]);
    const audit = await t.deps.db.selectFrom('audit_log').selectAll().where('subject_id', '=', body.id).execute();
    expect(audit.map((a) => [a.action, a.actor])).toEqual([['notify_channel.add', 'ops@test']]);
    expect(audit[0]!.details).not.toContain(BOT_TOKEN.split(':')[1]);
  });

  it('add discord and list: the merchant’s channels only, secrets masked', async () => {
    const url = discord.webhookUrl();
    const dc = await jsonOk(
      'notify',
      'add',
      '--merchant',
      seeded.merchant.id,
      '--type',
      'discord',
      '--url',
      url,
      '--language',
      'en',
    );
    expect(dc).toMatchObject({ type: 'discord', language: 'en', chat_id: null });
    expect(dc.secret_masked).toBe(`http://127.0.0.1:${discord.port}/••••${url.slice(-4)}`);
    await jsonOk('notify', 'add', '--merchant', other.merchant.id, '--type', 'email');

    const list = await jsonOk('notify', 'list', '--merchant', seeded.merchant.id);
    expect(Object.keys(list)).toEqual(['items']);
    expect(list.items.map((c: { type: string }) => c.type).sort()).toEqual(['discord', 'telegram']);
    expect(JSON.stringify(list)).not.toContain(url);
    expect(JSON.stringify(list)).not.toContain(BOT_TOKEN);
  });

  it('test sends a test alert now and says what the service answered', async () => {
    const list = await jsonOk('notify', 'list', '--merchant', seeded.merchant.id);
    const tg = list.items.find((c: { type: string }) => c.type === 'telegram');
    const result = await jsonOk('notify', 'test', tg.id);
    expect(result).toMatchObject({ channel: tg.id, state: 'succeeded', status_code: 200, error: null });
    expect(telegram.delivered.at(-1)).toMatchObject({ chatId: '4242' });
    expect(telegram.delivered.at(-1)!.text).toContain('Uji notifikasi');

    telegram.failures.push({
      status: 500,
      body: '{"ok":false,"error_code":500,"description":"Internal Server Error"}',
    });
    const failed = await jsonOk('notify', 'test', tg.id);
    expect(failed).toMatchObject({ state: 'retrying', status_code: 500, error: 'Telegram: Internal Server Error' });
  });

  it('remove keeps the history; refusals are clear errors', async () => {
    const list = await jsonOk('notify', 'list', '--merchant', seeded.merchant.id);
    const dc = list.items.find((c: { type: string }) => c.type === 'discord');
    expect(await jsonOk('notify', 'remove', dc.id)).toMatchObject({
      id: dc.id,
      status: 'disabled',
      cancelled_deliveries: 0,
    });
    expect((await jsonOk('notify', 'list', '--merchant', seeded.merchant.id)).items).toHaveLength(1);
    expect(await jsonError('notify', 'test', dc.id)).toMatchObject({ code: 'invalid_parameter', param: 'channel' });
    expect(await jsonError('notify', 'remove', 'nch_unknown')).toMatchObject({ code: 'not_found' });
    expect(await jsonError('notify', 'list', '--merchant', 'mch_unknown')).toMatchObject({
      code: 'merchant_not_found',
    });
    expect(
      await jsonError(
        'notify',
        'add',
        '--merchant',
        seeded.merchant.id,
        '--type',
        'telegram',
        '--bot-token',
        'nope',
        '--chat-id',
        '1',
      ),
    ).toMatchObject({
      code: 'invalid_parameter',
      param: 'bot_token',
    });
    expect(await jsonError('notify', 'add', '--merchant', seeded.merchant.id, '--type', 'pager')).toMatchObject({
      code: 'invalid_parameter',
      param: 'type',
    });
  });

  it('a Discord URL on a private address is refused without WEBHOOK_ALLOW_NETWORKS', async () => {
    const guarded = { ...env };
    delete guarded.WEBHOOK_ALLOW_NETWORKS;
    const out: string[] = [];
    const code = await runCli(
      ['notify', 'add', '--merchant', seeded.merchant.id, '--type', 'discord', '--url', discord.webhookUrl(), '--json'],
      { out: (s) => void out.push(s), err: () => {} },
      guarded,
    );
    expect(code).toBe(1);
    expect(JSON.parse(out.join('')).error).toMatchObject({ code: 'invalid_parameter', param: 'url' });
  });
});
