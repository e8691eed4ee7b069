// Merchants' alerts end to end (issue 27, section 4): a real database, the real dispatcher and senders,
// and real services on loopback: a Telegram Bot API server, a Discord execute-webhook server and an SMTP
// server (test/helpers). Time is the test clock; each dispatch() is one pass of the worker.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { formatRupiah } from '../../../src/domain/money.js';
import { NOTIFY_RETRY_DELAYS_MS } from '../../../src/domain/notify-retry.js';
import { FAILING_AFTER_CONSECUTIVE_FAILURES } from '../../../src/domain/webhook-retry.js';
import { createSmtpSender } from '../../../src/mail/smtp.js';
import type { MailSender } from '../../../src/mail/sender.js';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import type { Deps } from '../../../src/services/deps.js';
import { addNotifyChannel } from '../../../src/services/notify/add-notify-channel.js';
import { queueTestAlert } from '../../../src/services/notify/queue-test-alert.js';
import { getNotifyChannel } from '../../../src/services/notify/get-notify-channel.js';
import { removeNotifyChannel } from '../../../src/services/notify/remove-notify-channel.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { addWebhookEndpoint } from '../../../src/services/webhooks/add-webhook-endpoint.js';
import { removeWebhookEndpoint } from '../../../src/services/webhooks/remove-webhook-endpoint.js';
import { dispatchDueAlerts } from '../../../src/alerts/dispatch.js';
import { dispatchDueDeliveries } from '../../../src/workers/webhook-dispatcher.js';
import { TELEGRAM_LOOKUPS_PER_MINUTE } from '../../../src/web/console/pages/notifications.js';
import { BOT_TOKEN, DiscordServer, TelegramServer } from '../../helpers/chat-services.js';
import { addMerchantUser, ConsoleClient, noticeOf } from '../../helpers/console.js';
import { createTestApp, seedMerchant, type Seeded, type TestApp } from '../../helpers/context.js';
import { Receiver } from '../../helpers/receiver.js';
import { startTestSmtpServer, type TestSmtpServer } from '../../helpers/smtp-server.js';

let t: TestApp;
let telegram: TelegramServer;
let discord: DiscordServer;
let smtp: TestSmtpServer;
let mail: MailSender;
let other: Seeded;
const random = () => 0.5; // no jitter: waits are exactly the nominal schedule

beforeAll(async () => {
  [telegram, discord, smtp] = await Promise.all([TelegramServer.start(), DiscordServer.start(), startTestSmtpServer()]);
  telegram.tokens.add(BOT_TOKEN);
  t = await createTestApp({
    WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8',
    WEBHOOK_TIMEOUT_MS: '3000',
    TELEGRAM_API_URL: telegram.url,
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Gateway <gateway@example.test>',
    CONSOLE: 'true',
  });
  mail = createSmtpSender(smtp.url, { name: 'Gateway', address: 'gateway@example.test' });
  other = await seedMerchant(t.deps, 1, 'Toko Sebelah');
  await addMerchantUser(t.deps, [t.merchant.id], 'owner@warung.test');
  await addMerchantUser(t.deps, [other.merchant.id], 'owner@sebelah.test');
});
afterAll(async () => {
  mail?.close();
  await t?.close();
  await Promise.all([telegram?.close(), discord?.close(), smtp?.close()]);
});
afterEach(async () => {
  // Each test adds its own channels; none outlives it.
  const open = await t.deps.db.selectFrom('notify_channels').select('id').where('status', '=', 'active').execute();
  for (const c of open) await removeNotifyChannel(t.deps, c.id);
  telegram.requests.length = 0;
  telegram.delivered.length = 0;
  telegram.failures.length = 0;
  discord.requests.length = 0;
  discord.delivered.length = 0;
  discord.failures.length = 0;
  smtp.messages.length = 0;
});

const dispatch = (deps: Deps = t.deps) => dispatchDueAlerts(deps, { random, mail });

const addTelegram = (merchantId = t.merchant.id, language?: string) =>
  addNotifyChannel(t.deps, {
    merchantId,
    type: 'telegram',
    botToken: BOT_TOKEN,
    chatId: '-1001234567890',
    ...(language ? { language } : {}),
  });
const addDiscord = (merchantId = t.merchant.id) =>
  addNotifyChannel(t.deps, { merchantId, type: 'discord', url: discord.webhookUrl() });

async function payNewTransaction(amount = 25_000, ref = 'meja-7'): Promise<{ trxid: string; total: number }> {
  const res = await t.app.inject({
    url: `/api/payment-gateway/cqris?amount=${amount}&ref=${ref}-${Date.now()}`,
    headers: { 'x-api-key': t.testKey },
  });
  expect(res.statusCode).toBe(200);
  const tx = res.json().data as { trxid: string; total_amount: number };
  await simulatePayment(t.deps, { merchantId: t.merchant.id, mode: 'test' }, tx.trxid);
  return { trxid: tx.trxid, total: tx.total_amount };
}

const alertsOf = (channelId: string) =>
  t.deps.db
    .selectFrom('notify_deliveries')
    .selectAll()
    .where('channel_id', '=', channelId)
    .orderBy('created_at')
    .execute();
const attemptsOf = (deliveryId: string) =>
  t.deps.db
    .selectFrom('notify_attempts')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempted_at')
    .orderBy('id')
    .execute();

async function ownerClient(email = 'owner@warung.test'): Promise<ConsoleClient> {
  const c = new ConsoleClient(t.app);
  expect((await c.logIn(email)).statusCode).toBe(303);
  return c;
}

describe('a paid transaction', () => {
  it('reaches the Telegram chat and the Discord channel with the amount, in Indonesian by default', async () => {
    const tg = await addTelegram();
    const dc = await addDiscord();
    expect(tg.language).toBe('id');
    const paid = await payNewTransaction();

    expect((await dispatch()).states.sort()).toEqual(['succeeded', 'succeeded']);
    expect(telegram.delivered).toHaveLength(1);
    const message = telegram.delivered[0]!;
    expect(message.token).toBe(BOT_TOKEN);
    expect(message.chatId).toBe('-1001234567890');
    expect(message.text).toContain(`Pembayaran diterima: ${formatRupiah(paid.total)}`);
    expect(message.text).toContain('Test Merchant');
    expect(message.text).toContain('meja-7');
    expect(message.text).toMatch(/Waktu: .* WIB/);
    expect(message.text).toContain('[Sandbox]');
    expect(telegram.requests[0]!.json).toEqual({ chat_id: '-1001234567890', text: message.text });

    expect(discord.delivered).toHaveLength(1);
    expect(discord.delivered[0]!.content).toContain(
      `**\\[Sandbox\\] Pembayaran diterima: ${formatRupiah(paid.total)}**`,
    );
    expect(discord.requests[0]!.json).toEqual({ content: discord.delivered[0]!.content });

    // Sent once: the next pass has nothing to send.
    expect((await dispatch()).claimed).toBe(0);
    const [alert] = await alertsOf(tg.id);
    expect(alert).toMatchObject({ kind: 'payment_received', status: 'succeeded', attempts: 1, last_status_code: 200 });
    const [dcAlert] = await alertsOf(dc.id);
    expect(dcAlert).toMatchObject({ status: 'succeeded', last_status_code: 204 });
  });

  it('speaks English on a channel set to English', async () => {
    await addTelegram(t.merchant.id, 'en');
    const paid = await payNewTransaction(10_000);
    await dispatch();
    expect(telegram.delivered[0]!.text).toContain(`Payment received: ${formatRupiah(paid.total)}`);
  });

  it('a 500 is retried after the backoff and then delivered; both attempts are kept and listed in the console', async () => {
    const tg = await addTelegram();
    telegram.failures.push({
      status: 500,
      body: '{"ok":false,"error_code":500,"description":"Internal Server Error"}',
    });
    await payNewTransaction();
    const started = t.clock.now();

    expect((await dispatch()).states).toEqual(['retrying']);
    const [alert] = await alertsOf(tg.id);
    expect(alert).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status_code: 500,
      next_attempt_at: started + NOTIFY_RETRY_DELAYS_MS[0]!,
    });
    expect(telegram.delivered).toHaveLength(0);
    expect((await dispatch()).claimed).toBe(0); // not due yet

    t.clock.advance(NOTIFY_RETRY_DELAYS_MS[0]!);
    expect((await dispatch()).states).toEqual(['succeeded']);
    expect(telegram.delivered).toHaveLength(1);
    const attempts = await attemptsOf(alert!.id);
    expect(attempts.map((a) => [a.status_code, a.succeeded])).toEqual([
      [500, 0],
      [200, 1],
    ]);
    expect(attempts[0]!.error).toBe('Telegram: Internal Server Error');

    const owner = await ownerClient();
    const page = await owner.get(`/dashboard/notifications/${tg.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('HTTP 500');
    expect(page.body).toContain('HTTP 200');
    expect(page.body).toContain('Telegram: Internal Server Error');
  });

  it('{"ok": false} with a 200 is a failure, and a 429 waits at least its retry_after', async () => {
    const tg = await addTelegram();
    telegram.failures.push(
      { status: 200, body: '{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}' },
      {
        status: 429,
        body: '{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 300","parameters":{"retry_after":300}}',
      },
    );
    await payNewTransaction();
    expect((await dispatch()).states).toEqual(['retrying']);
    const [alert] = await alertsOf(tg.id);
    expect((await attemptsOf(alert!.id))[0]!.error).toBe(
      'the chat was not found: open the bot in Telegram and press Start (or add the bot to the group), then try again',
    );

    t.clock.advance(NOTIFY_RETRY_DELAYS_MS[0]!);
    expect((await dispatch()).states).toEqual(['retrying']);
    // The backoff says a minute; Telegram said five: five it is.
    expect((await alertsOf(tg.id))[0]!.next_attempt_at).toBe(t.clock.now() + 300_000);
    t.clock.advance(NOTIFY_RETRY_DELAYS_MS[1]!);
    expect((await dispatch()).claimed).toBe(0);
    t.clock.advance(300_000 - NOTIFY_RETRY_DELAYS_MS[1]!);
    expect((await dispatch()).states).toEqual(['succeeded']);
  });

  it('an unknown bot token is a failure that never shows the token', async () => {
    const badToken = '7012345678:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    const tg = await addNotifyChannel(t.deps, {
      merchantId: t.merchant.id,
      type: 'telegram',
      botToken: badToken,
      chatId: '42',
    });
    await payNewTransaction();
    expect((await dispatch()).states).toEqual(['retrying']);
    const [attempt] = await attemptsOf((await alertsOf(tg.id))[0]!.id);
    expect(attempt).toMatchObject({
      status_code: 401,
      succeeded: 0,
      error: 'the bot token is wrong: copy it again from @BotFather (it looks like 123456789:AA...)',
    });
    const owner = await ownerClient();
    for (const url of ['/dashboard/notifications', `/dashboard/notifications/${tg.id}`]) {
      const page = await owner.get(url);
      expect(page.body).not.toContain(badToken);
      expect(page.body).not.toContain(badToken.split(':')[1]);
    }
    const audit = await t.deps.db.selectFrom('audit_log').select('details').where('subject_id', '=', tg.id).execute();
    expect(JSON.stringify(audit)).not.toContain(badToken.split(':')[1]);
  });
});

describe('other alerts', () => {
  it('an unmatched payment is told on the channels', async () => {
    await addTelegram();
    await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'test',
      source: 'manual',
      sourcePaymentId: `stray-${Date.now()}`,
      amount: 77_777,
      paidAt: t.clock.now(),
      reference: 'BCA-STRAY-1',
      payerName: 'Budi Santoso',
      issuer: 'DANA',
    });
    await dispatch();
    expect(telegram.delivered).toHaveLength(1);
    const text = telegram.delivered[0]!.text;
    expect(text).toContain('Pembayaran tidak cocok: Rp77.777');
    expect(text).toContain('Pembayar: Budi Santoso');
    expect(text).toContain('Dibayar dengan: DANA');
    expect(text).toContain('BCA-STRAY-1');
  });

  it('a webhook endpoint that keeps failing is told once, when it turns failing', async () => {
    const receiver = await Receiver.start();
    receiver.respond = () => ({ status: 503 });
    const endpoint = await addWebhookEndpoint(t.deps, { merchantId: t.merchant.id, url: receiver.url() });
    try {
      await addTelegram();
      await payNewTransaction();
      await dispatch(); // the payment's own alert
      telegram.delivered.length = 0;
      // One failure short of the mark, as if after a run of failed attempts.
      await t.deps.db
        .updateTable('webhook_endpoints')
        .set({ consecutive_failures: FAILING_AFTER_CONSECUTIVE_FAILURES - 1 })
        .where('id', '=', endpoint.id)
        .execute();
      await dispatchDueDeliveries(t.deps, { random });
      await dispatch();
      expect(telegram.delivered).toHaveLength(1);
      expect(telegram.delivered[0]!.text).toContain('Webhook terus gagal');
      expect(telegram.delivered[0]!.text).toContain(
        `${receiver.url()} gagal ${FAILING_AFTER_CONSECUTIVE_FAILURES} kali berturut-turut`,
      );
      // Failing on: no new alert.
      t.clock.advance(3600_000);
      await dispatchDueDeliveries(t.deps, { random });
      await dispatch();
      expect(telegram.delivered).toHaveLength(1);
    } finally {
      await removeWebhookEndpoint(t.deps, endpoint.id);
      await receiver.close();
    }
  });

  it("an e-mail alert reaches the merchant's users at the SMTP server, and no one else", async () => {
    await addNotifyChannel(t.deps, { merchantId: t.merchant.id, type: 'email' });
    const paid = await payNewTransaction();
    expect((await dispatch()).states).toEqual(['succeeded']);
    expect(smtp.messages).toHaveLength(1);
    expect(smtp.messages[0]!.to).toEqual(['owner@warung.test']);
    const parsed = await smtp.messages[0]!.parse();
    expect(parsed.subject).toContain(`Pembayaran diterima: ${formatRupiah(paid.total)}`);
    expect(parsed.text).toContain('meja-7');
  });

  it('a removed channel gets nothing, and its waiting alerts are closed', async () => {
    const tg = await addTelegram();
    await payNewTransaction();
    const removed = await removeNotifyChannel(t.deps, tg.id);
    expect(removed).toMatchObject({ status: 'disabled', cancelled_deliveries: 1 });
    expect((await dispatch()).claimed).toBe(0);
    expect(telegram.requests).toHaveLength(0);
  });
});

describe('the private-address guard', () => {
  it('refuses a Discord URL and the Telegram API on a private address without WEBHOOK_ALLOW_NETWORKS', async () => {
    const { createTestContext } = await import('../../helpers/context.js');
    const guarded = await createTestContext({ TELEGRAM_API_URL: telegram.url });
    try {
      const m = await seedMerchant(guarded.deps);
      await expect(
        addNotifyChannel(guarded.deps, { merchantId: m.merchant.id, type: 'discord', url: discord.webhookUrl() }),
      ).rejects.toMatchObject({
        code: 'invalid_parameter',
        param: 'url',
      });
      const tg = await addNotifyChannel(guarded.deps, {
        merchantId: m.merchant.id,
        type: 'telegram',
        botToken: BOT_TOKEN,
        chatId: '42',
      });
      const id = await queueTestAlert(guarded.deps, await getNotifyChannel(guarded.deps, tg.id));
      expect((await dispatchDueAlerts(guarded.deps, { random, mail: null })).states).toEqual(['retrying']);
      const [attempt] = await guarded.deps.db
        .selectFrom('notify_attempts')
        .selectAll()
        .where('delivery_id', '=', id)
        .execute();
      expect(attempt!.error).toMatch(/destination refused: 127\.0\.0\.1 is .*WEBHOOK_ALLOW_NETWORKS/);
      expect(attempt!.error).not.toContain(BOT_TOKEN.split(':')[1]);
      expect(telegram.requests).toHaveLength(0);
    } finally {
      await guarded.close();
    }
  });
});

describe('the console', () => {
  it('adds a Telegram channel, shows its token masked, and Send test delivers', async () => {
    const owner = await ownerClient();
    const added = await owner.post(
      '/dashboard/notifications',
      { merchant: t.merchant.id, type: 'telegram', language: 'id', bot_token: BOT_TOKEN, chat_id: '123456' },
      '/dashboard/notifications',
    );
    expect(added.statusCode).toBe(303);
    const channelPage = added.headers.location as string;
    expect(channelPage).toMatch(/^\/dashboard\/notifications\/nch_/);
    const list = await owner.get('/dashboard/notifications');
    expect(list.body).not.toContain(BOT_TOKEN);
    expect(list.body).toContain(`7012345678:••••${BOT_TOKEN.slice(-4)}`);

    const sent = await owner.post(`${channelPage}/test`, {}, channelPage);
    expect(sent.statusCode).toBe(303);
    const page = await owner.get(channelPage);
    expect(noticeOf(page.body)).toBe('Test alert delivered.');
    expect(telegram.delivered).toHaveLength(1);
    expect(telegram.delivered[0]!.text).toContain('Uji notifikasi');
    expect(telegram.delivered[0]!.chatId).toBe('123456');
    expect(page.body).toContain('HTTP 200');
  });

  it("Send test on an e-mail channel mails the merchant's users at once", async () => {
    const channel = await addNotifyChannel(t.deps, { merchantId: t.merchant.id, type: 'email', language: 'en' });
    const owner = await ownerClient();
    await owner.post(`/dashboard/notifications/${channel.id}/test`, {}, `/dashboard/notifications/${channel.id}`);
    expect(noticeOf((await owner.get(`/dashboard/notifications/${channel.id}`)).body)).toBe('Test alert delivered.');
    expect(smtp.messages.map((m) => m.to)).toEqual([['owner@warung.test']]);
    expect((await smtp.messages[0]!.parse()).subject).toBe('qris-gateway: Test alert');
  });

  it('Send test says why a test failed', async () => {
    const dc = await addDiscord();
    discord.failures.push({ status: 404, body: '{"message":"Unknown Webhook","code":10015}' });
    const owner = await ownerClient();
    await owner.post(`/dashboard/notifications/${dc.id}/test`, {}, `/dashboard/notifications/${dc.id}`);
    const page = await owner.get(`/dashboard/notifications/${dc.id}`);
    expect(noticeOf(page.body)).toContain('Discord: Unknown Webhook');
  });

  it("another merchant's channel is a 404 on every route, and its actions change nothing", async () => {
    const theirs = await addTelegram(other.merchant.id);
    const owner = await ownerClient();
    expect((await owner.get(`/dashboard/notifications/${theirs.id}`)).statusCode).toBe(404);
    expect(
      (await owner.post(`/dashboard/notifications/${theirs.id}/test`, {}, '/dashboard/notifications')).statusCode,
    ).toBe(404);
    expect(
      (await owner.post(`/dashboard/notifications/${theirs.id}/remove`, {}, '/dashboard/notifications')).statusCode,
    ).toBe(404);
    expect((await owner.get('/dashboard/notifications')).body).not.toContain(theirs.id);
    expect(await alertsOf(theirs.id)).toHaveLength(0);
    expect((await getNotifyChannel(t.deps, theirs.id)).status).toBe('active');
    // Nor may a channel be added to another merchant.
    const refused = await owner.post(
      '/dashboard/notifications',
      { merchant: other.merchant.id, type: 'telegram', bot_token: BOT_TOKEN, chat_id: '1' },
      '/dashboard/notifications',
    );
    expect(refused.statusCode).toBe(404);
  });

  it('refuses a malformed token with a notice, and removes a channel', async () => {
    const owner = await ownerClient();
    const bad = await owner.post(
      '/dashboard/notifications',
      { merchant: t.merchant.id, type: 'telegram', bot_token: 'not a token', chat_id: '1' },
      '/dashboard/notifications',
    );
    expect(bad.headers.location).toBe('/dashboard/notifications');
    expect(noticeOf((await owner.get('/dashboard/notifications')).body)).toContain('bot token must look like');
    const dc = await addDiscord();
    const removed = await owner.post(
      `/dashboard/notifications/${dc.id}/remove`,
      {},
      `/dashboard/notifications/${dc.id}`,
    );
    expect(removed.headers.location).toBe('/dashboard/notifications');
    expect((await getNotifyChannel(t.deps, dc.id)).status).toBe('disabled');
  });
});

describe('secrets in logs', () => {
  it('neither the bot token nor the Discord URL reaches a log line, through the console or a failed attempt', async () => {
    const logged = await createTestApp(
      { WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8', TELEGRAM_API_URL: telegram.url, CONSOLE: 'true', LOG_LEVEL: 'trace' },
      { captureLogs: true },
    );
    try {
      await addMerchantUser(logged.deps, [logged.merchant.id], 'owner@logged.test');
      const owner = new ConsoleClient(logged.app);
      await owner.logIn('owner@logged.test');
      const unknownToken = '7012345678:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
      const discordUrl = discord.webhookUrl('998877', 'SeCrEtDiScOrDtOkEn-0123456789abcdefghij');
      await owner.post(
        '/dashboard/notifications',
        { merchant: logged.merchant.id, type: 'telegram', bot_token: unknownToken, chat_id: '1' },
        '/dashboard/notifications',
      );
      await owner.post(
        '/dashboard/notifications',
        { merchant: logged.merchant.id, type: 'discord', url: discordUrl },
        '/dashboard/notifications',
      );
      discord.failures.push({ status: 500, body: '{"message":"boom"}' });
      const channels = await logged.deps.db
        .selectFrom('notify_channels')
        .select('id')
        .where('merchant_id', '=', logged.merchant.id)
        .execute();
      for (const c of channels)
        await owner.post(`/dashboard/notifications/${c.id}/test`, {}, `/dashboard/notifications/${c.id}`);
      expect(logged.logs.join('\n')).toContain('alert attempt failed');
      for (const secret of [unknownToken.split(':')[1]!, 'SeCrEtDiScOrDtOkEn'])
        expect(logged.logs.join('\n')).not.toContain(secret);
    } finally {
      await logged.close();
    }
  });
});

describe('connecting Telegram without reading JSON (issue 37, section 7)', () => {
  const connect = (owner: ConsoleClient, token = BOT_TOKEN) =>
    owner.post(
      '/dashboard/notifications/telegram/connect',
      { merchant: t.merchant.id, type: 'telegram', language: 'en', bot_token: token },
      '/dashboard/notifications',
    );
  const field = (page: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? '';
  const find = (owner: ConsoleClient, page: string) =>
    owner.post(
      '/dashboard/notifications/telegram/find',
      Object.fromEntries(
        ['merchant', 'language', 'bot_token', 'bot', 'nonce', '_csrf'].map((n) => [n, field(page, n)]),
      ),
    );

  it("shows the bot's link, and finds the chat in which Start was pressed on it", async () => {
    telegram.usernames.set(BOT_TOKEN, 'warung_kasir_bot');
    const owner = await ownerClient();
    const page = await connect(owner);
    expect(page.statusCode).toBe(200);
    const nonce = field(page.body, 'nonce');
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
    expect(page.body).toContain(`href="https://t.me/warung_kasir_bot?start=${nonce}"`);
    expect(telegram.requests.map((r) => r.path)).toEqual([`/bot${BOT_TOKEN}/getMe`]);

    // Before Start: nothing found, the page says so and looks again.
    const early = await find(owner, page.body);
    expect(early.statusCode).toBe(200);
    expect(early.headers['x-chat-search']).toBe('waiting');
    expect(early.body).toContain('No Start from this link yet');

    telegram.message(BOT_TOKEN, 777001, '/start someone-elses-nonce-0000');
    telegram.message(BOT_TOKEN, 5550001, `/start ${nonce}`);
    telegram.message(BOT_TOKEN, 777002, 'hello');
    const found = await find(owner, early.body);
    expect(found.statusCode).toBe(303);
    const channelPage = found.headers.location as string;
    expect(channelPage).toMatch(/^\/dashboard\/notifications\/nch_/);
    expect(noticeOf((await owner.get(channelPage)).body)).toBe('Connected to the chat. Try it with Send test.');
    const channel = await getNotifyChannel(t.deps, channelPage.split('/').at(-1)!);
    expect(channel).toMatchObject({
      type: 'telegram',
      chat_id: '5550001',
      secret: BOT_TOKEN,
      language: 'en',
      merchant_id: t.merchant.id,
    });
  });

  it("says what went wrong in the console's language: the Indonesian page in Indonesian, also in the attempt log", async () => {
    const owner = await ownerClient();
    await owner.get('/dashboard/lang/id?back=/dashboard/notifications');
    await connect(owner, '7012345678:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(noticeOf((await owner.get('/dashboard/notifications')).body)).toBe(
      'Telegram tidak dapat digunakan: token bot salah: salin lagi dari @BotFather (bentuknya seperti 123456789:AA...).',
    );
    // A channel whose test cannot reach Telegram: the notice and the attempt log say so in Indonesian.
    const tg = await addTelegram();
    const offline = { ...t.deps, config: { ...t.deps.config, telegramApiUrl: 'http://api.telegram.invalid' } };
    await queueTestAlert(offline, await getNotifyChannel(t.deps, tg.id));
    await dispatch(offline);
    const page = `/dashboard/notifications/${tg.id}`;
    const shown = (await owner.get(page)).body;
    expect(shown).toContain('tidak dapat menjangkau api.telegram.invalid: periksa koneksi internet dan DNS server');
    expect(shown).not.toContain('check the server');
  });

  it('says in plain words what went wrong: a wrong token, a webhook in the way', async () => {
    const owner = await ownerClient();
    const wrong = await connect(owner, '7012345678:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(wrong.statusCode).toBe(303);
    const back = await owner.get('/dashboard/notifications');
    expect(noticeOf(back.body)).toBe(
      'Telegram could not be used: the bot token is wrong: copy it again from @BotFather (it looks like 123456789:AA...).',
    );
    expect(back.body).not.toContain('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');

    const page = await connect(owner);
    telegram.webhooks.add(BOT_TOKEN);
    try {
      const blocked = await find(owner, page.body);
      expect(blocked.headers['x-chat-search']).toBe('failed');
      expect(noticeOf(blocked.body)).toContain('this bot has a webhook set, so the gateway cannot read its messages');
    } finally {
      telegram.webhooks.delete(BOT_TOKEN);
    }
  });

  it('the Bot API is asked at most TELEGRAM_LOOKUPS_PER_MINUTE times a minute per user and per merchant', async () => {
    // At a minute's start, so the one-minute window cannot turn mid-test; the clock only moves forward.
    t.clock.ms = Math.ceil((t.clock.ms + 1) / 60_000) * 60_000 + 1000;
    const owner = await ownerClient();
    const page = await connect(owner);
    expect(page.statusCode).toBe(200);
    // The token rides in the POST's own answer only, never cached.
    expect(page.headers['cache-control']).toContain('no-store');
    for (let i = 1; i < TELEGRAM_LOOKUPS_PER_MINUTE; i += 1)
      expect((await find(owner, page.body)).headers['x-chat-search']).toBe('waiting');
    expect(telegram.requests).toHaveLength(TELEGRAM_LOOKUPS_PER_MINUTE);

    const over = await find(owner, page.body);
    expect(over.statusCode).toBe(429);
    expect(over.headers['x-chat-search']).toBe('limited');
    expect(noticeOf(over.body)).toBe(
      'Telegram was asked too often in the last minute. Wait a minute, then press Find the chat.',
    );
    // The page can still look again later: its form is there.
    expect(field(over.body, 'nonce')).toBe(field(page.body, 'nonce'));
    expect(telegram.requests).toHaveLength(TELEGRAM_LOOKUPS_PER_MINUTE);

    // Another user of the same merchant is held by the merchant's count.
    await addMerchantUser(t.deps, [t.merchant.id], 'second@warung.test');
    const second = await ownerClient('second@warung.test');
    expect((await connect(second)).statusCode).toBe(303);
    expect(noticeOf((await second.get('/dashboard/notifications')).body)).toContain('Telegram was asked too often');
    expect(telegram.requests).toHaveLength(TELEGRAM_LOOKUPS_PER_MINUTE);

    // Another merchant's owner is not.
    const neighbour = await ownerClient('owner@sebelah.test');
    const theirs = await neighbour.post(
      '/dashboard/notifications/telegram/connect',
      { merchant: other.merchant.id, type: 'telegram', language: 'id', bot_token: BOT_TOKEN },
      '/dashboard/notifications',
    );
    expect(theirs.statusCode).toBe(200);
    expect(telegram.requests).toHaveLength(TELEGRAM_LOOKUPS_PER_MINUTE + 1);

    // A minute later the first owner may look again.
    t.clock.ms += 60_000;
    expect((await find(owner, page.body)).headers['x-chat-search']).toBe('waiting');
    expect(telegram.requests).toHaveLength(TELEGRAM_LOOKUPS_PER_MINUTE + 2);
  });

  it('a failed test says the server could not reach Telegram, not getaddrinfo ENOTFOUND', async () => {
    const tg = await addTelegram();
    const offline = { ...t.deps, config: { ...t.deps.config, telegramApiUrl: 'http://api.telegram.invalid' } };
    await queueTestAlert(offline, await getNotifyChannel(t.deps, tg.id));
    expect((await dispatch(offline)).states).toEqual(['retrying']);
    const [attempt] = await attemptsOf((await alertsOf(tg.id))[0]!.id);
    expect(attempt!.error).toBe("could not reach api.telegram.invalid: check the server's internet connection and DNS");
  });
});
