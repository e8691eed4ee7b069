import { newServiceState } from '../../../src/services/state.js';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { afterEach, describe, expect, it } from 'vitest';
import { buildQris } from '../../../src/domain/qris/index.js';
import { formatRupiah } from '../../../src/domain/money.js';
import { createLogger } from '../../../src/http/logger.js';
import { createSmtpSender } from '../../../src/mail/smtp.js';
import type { MailSender } from '../../../src/mail/sender.js';
import { createApiKey } from '../../../src/services/merchants/create-api-key.js';
import { createMerchant } from '../../../src/services/merchants/create-merchant.js';
import { claimEmail } from '../../../src/services/email/claim-email.js';
import { sendDueEmails } from '../../../src/services/email/send-due-emails.js';
import { MAX_EMAIL_ATTEMPTS } from '../../../src/domain/mail-retry.js';
import { openDatabase } from '../../../src/storage/database.js';
import { formatTime } from '../../../src/presentation/format.js';
import { startMailer } from '../../../src/workers/mailer.js';
import { createTestApp, type TestApp, vectors } from '../../helpers/context.js';
import { addMerchantUser, addOperator, ConsoleClient } from '../../helpers/console.js';
import { startTestSmtpServer, type TestSmtpServer } from '../../helpers/smtp-server.js';

// jsqr is CommonJS with ES-style typings; see test/unit/qr-image.test.ts.
const jsQR = jsQRModule.default;

const PAYER = 'payer@example.co.id';
const FROM = 'QRIS Gateway <pay@gateway.test>';

// Everything a test opens is closed after it, in reverse order, even when an assertion failed.
let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.reverse()) await fn();
  cleanups = [];
});

async function smtp(options: Parameters<typeof startTestSmtpServer>[0] = {}): Promise<TestSmtpServer> {
  const server = await startTestSmtpServer(options);
  cleanups.push(() => server.close());
  return server;
}

async function app(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await createTestApp(env);
  cleanups.push(() => t.close());
  return t;
}

function sender(t: TestApp): MailSender {
  const s = createSmtpSender(t.config.smtpUrl!, t.config.mailFrom!);
  cleanups.push(() => s.close());
  return s;
}

async function create(t: TestApp, query: string, key = t.testKey) {
  const res = await t.app.inject({ url: `/api/payment-gateway/cqris?${query}`, headers: { 'x-api-key': key } });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().data;
}

async function pay(t: TestApp, trxid: string, key = t.testKey) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/payment-gateway/simulate?trxid=${trxid}`,
    headers: { 'x-api-key': key },
  });
  expect(res.statusCode, res.body).toBe(200);
}

const emails = (t: TestApp, trxid: string) =>
  t.deps.db.selectFrom('emails').selectAll().where('transaction_id', '=', trxid).orderBy('kind').execute();

function decodeQr(png: Buffer): string | undefined {
  const img = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length), img.width, img.height)
    ?.data;
}

async function until(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('payer e-mail over SMTP', () => {
  it('sends the invoice with the total, unique code, expiry, link and a QR that decodes to the payload; then the receipt', async () => {
    const server = await smtp();
    const t = await app({ SMTP_URL: server.url, MAIL_FROM: FROM });
    const mailer = sender(t);
    const tx = await create(t, `amount=10000&email=${PAYER}&ref=ORDER-7`);

    const first = await sendDueEmails(t.deps, mailer);
    expect(first.map((r) => [r.kind, r.outcome.status])).toEqual([['invoice', 'sent']]);
    expect(server.messages).toHaveLength(1);
    const envelope = server.messages[0]!;
    expect(envelope.to).toEqual([PAYER]);
    expect(envelope.from).toBe('pay@gateway.test');
    const invoice = await envelope.parse();

    const total = formatRupiah(tx.total_amount);
    const breakdown = `${total} (Rp10.000 + kode unik ${tx.unique_code})`;
    expect(invoice.subject).toBe(`[Sandbox] Tagihan / Invoice ${total} – Warung Contoh`);
    expect(invoice.from?.value).toEqual([{ name: 'QRIS Gateway', address: 'pay@gateway.test' }]);
    expect(invoice.messageId).toMatch(/^<eml_[0-9A-Za-z]+@gateway\.test>$/);
    const text = invoice.text!;
    expect(text).toContain(breakdown);
    expect(text).toContain(`${total} (Rp10.000 + unique code ${tx.unique_code})`);
    expect(text).toContain(tx.checkout_url);
    expect(text).toContain(tx.trxid);
    expect(text).toContain('ORDER-7');
    expect(text).toContain(`Berlaku hingga: ${formatTime(Date.parse(tx.expires_at), 'id')}`);
    expect(text).toContain(`Valid until: ${formatTime(Date.parse(tx.expires_at), 'en')}`);
    // Bahasa Indonesia first, English below, in both parts.
    expect(text.indexOf('Total yang harus dibayar')).toBeGreaterThan(-1);
    expect(text.indexOf('Total yang harus dibayar')).toBeLessThan(text.indexOf('Amount to pay'));
    const html = invoice.html as string;
    expect(html.indexOf('Total yang harus dibayar')).toBeLessThan(html.indexOf('Amount to pay'));
    expect(html).toContain(`href="${tx.checkout_url}"`);

    // The QR travels inside the message and the HTML points at it, so blocked remote images do not matter.
    expect(invoice.attachments).toHaveLength(1);
    const qr = invoice.attachments[0]!;
    expect(qr.contentType).toBe('image/png');
    expect(qr.related).toBe(true);
    expect(html).toContain(`src="cid:${qr.cid}"`);
    expect(decodeQr(qr.content)).toBe(tx.qris);

    await pay(t, tx.trxid);
    const second = await sendDueEmails(t.deps, mailer);
    expect(second.map((r) => [r.kind, r.outcome.status])).toEqual([['receipt', 'sent']]);
    expect(server.messages).toHaveLength(2);
    const receipt = await server.messages[1]!.parse();
    expect(receipt.subject).toBe(`[Sandbox] Bukti pembayaran / Receipt ${total} – Warung Contoh`);
    expect(receipt.attachments).toHaveLength(0);
    const rtext = receipt.text!;
    expect(rtext.indexOf('Pembayaran diterima')).toBeLessThan(rtext.indexOf('Payment received'));
    expect(rtext).toContain(`Jumlah dibayar: ${total}`);
    expect(rtext).toContain('Dibayar melalui: SIMULATOR');
    expect(rtext).toMatch(/Referensi pembayaran: SIM-/);
    expect(rtext).toMatch(/Waktu pembayaran: \d\d \w{3} \d{4}, \d\d\.\d\d\.\d\d WIB/);
    expect(rtext).not.toContain('setelah batas waktu');

    const rows = await emails(t, tx.trxid);
    expect(rows.map((r) => [r.kind, r.status, r.attempts])).toEqual([
      ['invoice', 'sent', 1],
      ['receipt', 'sent', 1],
    ]);
    expect(rows.every((r) => r.sent_at !== null && r.locked_until === null)).toBe(true);
    // Nothing left: a further run sends nothing.
    expect(await sendDueEmails(t.deps, mailer)).toEqual([]);
    expect(server.messages).toHaveLength(2);
  });

  it('retries a temporary SMTP rejection with backoff and delivers once', async () => {
    const server = await smtp({ rejectFirst: 1 });
    const t = await app({ SMTP_URL: server.url, MAIL_FROM: FROM });
    const mailer = sender(t);
    const tx = await create(t, `amount=20000&email=${PAYER}`);

    const [failed] = await sendDueEmails(t.deps, mailer);
    expect(failed!.outcome.status).toBe('retry');
    let [row] = await emails(t, tx.trxid);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, locked_until: null });
    expect(row!.last_error).toContain('try again later');
    // About a minute (with jitter), not at once.
    expect(row!.next_attempt_at - t.clock.now()).toBeGreaterThanOrEqual(54_000);
    expect(row!.next_attempt_at - t.clock.now()).toBeLessThanOrEqual(66_000);
    expect(await sendDueEmails(t.deps, mailer)).toEqual([]);

    t.clock.advance(2 * 60_000);
    const [retried] = await sendDueEmails(t.deps, mailer);
    expect(retried!.outcome.status).toBe('sent');
    [row] = await emails(t, tx.trxid);
    expect(row).toMatchObject({ status: 'sent', attempts: 2 });
    expect(server.dataAttempts).toBe(2);
    expect(server.messages).toHaveLength(1);
  });

  it('marks a mail failed once its last attempt fails', async () => {
    const server = await smtp({ rejectFirst: 100 });
    const t = await app({ SMTP_URL: server.url, MAIL_FROM: FROM });
    const tx = await create(t, `amount=20500&email=${PAYER}`);
    await t.deps.db
      .updateTable('emails')
      .set({ attempts: MAX_EMAIL_ATTEMPTS - 1 })
      .execute();
    const [result] = await sendDueEmails(t.deps, sender(t));
    expect(result!.outcome.status).toBe('failed');
    const [row] = await emails(t, tx.trxid);
    expect(row).toMatchObject({ status: 'failed', attempts: MAX_EMAIL_ATTEMPTS, locked_until: null });
    expect(row!.last_error).toContain('try again later');
  });

  it('leaves a row claimed by a mailer that died alone until its lease ends, then sends it once', async () => {
    const server = await smtp();
    const t = await app({ SMTP_URL: server.url, MAIL_FROM: FROM });
    const tx = await create(t, `amount=20700&email=${PAYER}`);
    const [row] = await emails(t, tx.trxid);
    expect(await claimEmail(t.deps, row!.id, 120_000)).not.toBeNull();
    expect(await sendDueEmails(t.deps, sender(t))).toEqual([]);
    t.clock.advance(121_000);
    expect((await sendDueEmails(t.deps, sender(t))).map((r) => r.outcome.status)).toEqual(['sent']);
    expect(server.messages).toHaveLength(1);
  });

  it('gives up at once on a recipient the relay refuses permanently', async () => {
    const server = await smtp({ unknownRecipients: ['nobody@example.co.id'] });
    const t = await app({ SMTP_URL: server.url, MAIL_FROM: FROM });
    const tx = await create(t, 'amount=21000&email=nobody@example.co.id');
    const [result] = await sendDueEmails(t.deps, sender(t));
    expect(result!.outcome.status).toBe('failed');
    const [row] = await emails(t, tx.trxid);
    expect(row).toMatchObject({ status: 'failed', attempts: 1 });
    expect(row!.last_error).toMatch(/550|rejected/);
  });

  it('stops a run at an unreachable relay, leaving the other mails due untouched', async () => {
    const gone = await startTestSmtpServer();
    await gone.close();
    const t = await app({ SMTP_URL: gone.url, MAIL_FROM: FROM });
    for (let i = 0; i < 3; i++) await create(t, `amount=${22000 + i}&email=${PAYER}`);
    const results = await sendDueEmails(t.deps, sender(t));
    expect(results.map((r) => r.outcome.status)).toEqual(['retry']);
    const rows = await t.deps.db.selectFrom('emails').select(['status', 'attempts']).orderBy('attempts').execute();
    expect(rows).toEqual([
      { status: 'pending', attempts: 0 },
      { status: 'pending', attempts: 0 },
      { status: 'pending', attempts: 1 },
    ]);
  });

  it('does not send an invoice for a transaction already paid or expired, but sends the receipt', async () => {
    const server = await smtp();
    const t = await app({ SMTP_URL: server.url, MAIL_FROM: FROM });
    const mailer = sender(t);
    const paid = await create(t, `amount=30000&email=${PAYER}`);
    await pay(t, paid.trxid);
    await sendDueEmails(t.deps, mailer);
    const paidRows = await emails(t, paid.trxid);
    expect(paidRows.map((r) => [r.kind, r.status, r.last_error])).toEqual([
      ['invoice', 'skipped', 'transaction_paid'],
      ['receipt', 'sent', null],
    ]);
    expect(server.messages).toHaveLength(1);
    expect((await server.messages[0]!.parse()).subject).toContain('Receipt');

    const stale = await create(t, `amount=31000&email=${PAYER}`);
    t.clock.advance(16 * 60_000);
    await sendDueEmails(t.deps, mailer);
    expect((await emails(t, stale.trxid)).map((r) => [r.status, r.last_error])).toEqual([
      ['skipped', 'transaction_expired'],
    ]);

    // Paid after expiry: the receipt says so.
    await pay(t, stale.trxid);
    await sendDueEmails(t.deps, mailer);
    const late = await server.messages[1]!.parse();
    expect(late.text).toContain('setelah batas waktu tagihan');
    expect(late.text).toContain('after the invoice had expired');
  });

  it('without SMTP_URL records both mails as skipped and says so once, at info', async () => {
    const t = await app();
    const tx = await create(t, `amount=40000&email=${PAYER}`);
    await pay(t, tx.trxid);
    const logs: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line) => logs.push(line) } });
    const worker = startMailer({ ...t.deps, logger }, { intervalMs: 20 });
    cleanups.push(() => worker.stop());
    const skipped = async (trxid: string) => (await emails(t, trxid)).every((r) => r.status === 'skipped');
    await until(() => skipped(tx.trxid));
    expect((await emails(t, tx.trxid)).map((r) => [r.kind, r.status, r.last_error, r.attempts])).toEqual([
      ['invoice', 'skipped', 'smtp_not_configured', 0],
      ['receipt', 'skipped', 'smtp_not_configured', 0],
    ]);
    const another = await create(t, `amount=41000&email=${PAYER}`);
    await until(() => skipped(another.trxid));
    const notices = logs.map((l) => JSON.parse(l)).filter((l) => /SMTP_URL not set/.test(l.msg));
    expect(notices).toHaveLength(1);
    expect(notices[0].level).toBe(30);
  });

  it('two mailers running at once send each mail exactly once', async () => {
    const server = await smtp({ delayMs: 15 });
    const t = await app({ SMTP_URL: server.url, MAIL_FROM: FROM });
    const trxids: string[] = [];
    for (let i = 0; i < 8; i++) trxids.push((await create(t, `amount=${50000 + i}&email=p${i}@example.co.id`)).trxid);
    // A second connection (pool) to the same database, as a second process would have.
    const other = openDatabase(t.databaseUrl);
    cleanups.push(() => other.close());
    const [a, b] = await Promise.all([
      sendDueEmails(t.deps, sender(t), { batch: 3 }),
      sendDueEmails({ ...t.deps, db: other, state: newServiceState() }, sender(t), { batch: 3 }),
    ]);
    expect(a.length + b.length).toBe(8);
    expect(server.messages).toHaveLength(8);
    const recipients = server.messages.map((m) => m.to[0]).sort();
    expect(recipients).toEqual(Array.from({ length: 8 }, (_, i) => `p${i}@example.co.id`).sort());
    const rows = await t.deps.db.selectFrom('emails').selectAll().execute();
    expect(rows.map((r) => [r.status, r.attempts])).toEqual(rows.map(() => ['sent', 1]));
  });

  it('a mailer told to stop finishes the send under way and starts no other of its backlog', async () => {
    const server = await smtp({ delayMs: 300 });
    const t = await app({ SMTP_URL: server.url, MAIL_FROM: FROM });
    for (let i = 0; i < 4; i++) await create(t, `amount=${60000 + i}&email=p${i}@example.co.id`);
    const worker = startMailer(t.deps, { intervalMs: 60_000 });
    // The relay holds the first message for 300 ms before it answers.
    await until(async () => server.dataAttempts === 1);
    await worker.stop();
    expect(server.messages).toHaveLength(1);
    const rows = await t.deps.db.selectFrom('emails').select('status').execute();
    expect(rows.map((r) => r.status).sort()).toEqual(['pending', 'pending', 'pending', 'sent']);
  });

  it("names the merchant as its QRIS does (as the checkout page and the payer's bank app), and escapes merchant and integrator text in the HTML", async () => {
    const server = await smtp();
    const t = await app({ SMTP_URL: server.url, MAIL_FROM: FROM });
    // The name in the QRIS, which payers see; the gateway's own name for the merchant is the console's.
    const name = 'Toko <b>& "Kita"';
    const qris = buildQris([
      { tag: '00', value: '01' },
      { tag: '01', value: '11' },
      {
        tag: '26',
        value: '',
        children: [
          { tag: '00', value: 'ID.CO.EXAMPLE.WWW' },
          { tag: '01', value: '936000000000000002' },
        ],
      },
      {
        tag: '51',
        value: '',
        children: [
          { tag: '00', value: 'ID.CO.QRIS.WWW' },
          { tag: '02', value: 'ID1020000000002' },
        ],
      },
      { tag: '52', value: '5812' },
      { tag: '53', value: '360' },
      { tag: '58', value: 'ID' },
      { tag: '59', value: name },
      { tag: '60', value: 'JAKARTA' },
    ]);
    const merchant = await createMerchant(t.deps, { name: 'Console Only Name', qris });
    const key = (await createApiKey(t.deps, { merchantId: merchant.id, mode: 'test' })).key;
    const ref = encodeURIComponent(`<i>'x'&"y"</i>`);
    const tx = await create(t, `amount=60000&email=${PAYER}&ref=${ref}`, key);
    await pay(t, tx.trxid, key);
    // Invoice skipped (already paid): pay a second one later so both templates are checked.
    const tx2 = await create(t, `amount=61000&email=${PAYER}&ref=${ref}2`, key);
    await sendDueEmails(t.deps, sender(t));
    expect(server.messages).toHaveLength(2);
    for (const message of server.messages) {
      const parsed = await message.parse();
      const html = parsed.html as string;
      expect(html).not.toMatch(/<b>|<i>|<\/i>/);
      expect(html).toContain('Toko &lt;b&gt;&amp; &quot;Kita&quot;');
      expect(html).toContain('&lt;i&gt;&#39;x&#39;&amp;&quot;y&quot;&lt;/i&gt;');
      // Plain text and subject carry the name as written: they are not HTML.
      expect(parsed.text).toContain(name);
      expect(parsed.subject).toContain(name);
      expect(`${parsed.subject} ${parsed.text} ${html}`).not.toContain('Console Only Name');
    }
    const subjects = await Promise.all(server.messages.map(async (m) => (await m.parse()).subject!));
    expect(subjects.filter((s) => s.includes('Receipt'))).toHaveLength(1);
    expect(subjects.filter((s) => s.includes('Invoice'))).toHaveLength(1);
    expect((await emails(t, tx2.trxid))[0]!.status).toBe('sent');
  });

  it('logs in with the credentials of SMTP_URL and never logs the password', async () => {
    const server = await smtp({ login: { username: 'mailer', password: 'p@ss:w/rd' } });
    const t = await app({
      SMTP_URL: `smtp://mailer:${encodeURIComponent('p@ss:w/rd')}@127.0.0.1:${server.port}`,
      MAIL_FROM: FROM,
    });
    const tx = await create(t, `amount=70000&email=${PAYER}`);
    const logs: string[] = [];
    const logger = createLogger({ level: 'trace', destination: { write: (line) => logs.push(line) } });
    const worker = startMailer({ ...t.deps, logger }, { intervalMs: 20 });
    cleanups.push(() => worker.stop());
    await until(async () => (await emails(t, tx.trxid))[0]!.status === 'sent');
    // The mailer logs after its update commits; this test can see the row first (it did on PostgreSQL).
    await until(async () => logs.some((l) => l.includes('e-mail sent')));
    expect(server.logins).toEqual([{ username: 'mailer', password: 'p@ss:w/rd' }]);
    expect(server.messages).toHaveLength(1);
    const all = logs.join('\n');
    expect(all).toContain('mailer started');
    expect(all).toContain('e-mail sent');
    expect(all).not.toContain('p@ss');
    expect(all).not.toContain(encodeURIComponent('p@ss:w/rd'));
  });

  // issue 23, finding 7: the review's repro. A confirmed but unapproved self-service merchant made a test
  // key and called cqris?email=anyone@elsewhere: the invoice went out from the operator's MAIL_FROM.
  it("an unapproved self-service merchant mails no stranger, only its own users; operators' and approved merchants mail anyone", async () => {
    const server = await smtp();
    const t = await app({ SMTP_URL: server.url, MAIL_FROM: FROM, SIGNUP: 'open' });
    expect(t.config.liveKeys).toBe('approval');
    // (A user an operator made: how an account comes to be is not what this test is about.)
    await addMerchantUser(t.deps, [t.merchant.id], 'owner@warung.test');
    const owner = new ConsoleClient(t.app);
    expect((await owner.logIn('owner@warung.test')).statusCode).toBe(303);
    // The review's name is refused outright; a plain one is taken.
    const phishing = await owner.post('/dashboard/merchants', {
      name: 'PERINGATAN: rekening Anda DIBLOKIR. Pulihkan di http://pulih.example',
      qris: vectors.vectors[1]!.static,
    });
    expect(phishing.statusCode).toBe(400);
    expect(
      (await owner.post('/dashboard/merchants', { name: 'Warung Baru', qris: vectors.vectors[1]!.static })).statusCode,
    ).toBe(303);
    const merchant = await t.deps.db
      .selectFrom('merchants')
      .selectAll()
      .where('name', '=', 'Warung Baru')
      .executeTakeFirstOrThrow();
    expect(merchant.live_approved_at).toBeNull();
    const key = (await createApiKey(t.deps, { merchantId: merchant.id, mode: 'test' })).key;
    const cqris = (query: string, k = key) =>
      t.app.inject({ url: `/api/payment-gateway/cqris?${query}`, headers: { 'x-api-key': k } });

    const stranger = await cqris(
      `amount=10000&email=anyone@elsewhere.test&ref=${encodeURIComponent('http://pulih.example/login')}`,
    );
    expect(stranger.statusCode).toBe(403);
    expect(stranger.json().error).toMatchObject({ code: 'email_not_allowed', param: 'email' });
    expect(
      await t.deps.db.selectFrom('transactions').select('id').where('merchant_id', '=', merchant.id).execute(),
    ).toEqual([]);
    // Without an e-mail the test key works as before; with the owner's own address the invoice goes to the owner.
    expect((await cqris('amount=10001')).statusCode).toBe(200);
    expect((await cqris('amount=10002&email=Owner@Warung.test')).statusCode).toBe(200);
    await sendDueEmails(t.deps, sender(t));
    expect(server.messages.map((m) => m.to)).toEqual([['Owner@warung.test']]);

    // An operator's merchant (approved when made) is unaffected.
    await create(t, 'amount=10003&email=anyone@elsewhere.test');
    await sendDueEmails(t.deps, sender(t));
    expect(server.messages.map((m) => m.to)).toEqual([['Owner@warung.test'], ['anyone@elsewhere.test']]);
    expect(server.messages.filter((m) => m.to.includes('anyone@elsewhere.test'))).toHaveLength(1);

    // Once an operator approves the merchant, it mails its payers.
    await addOperator(t.deps);
    const ops = new ConsoleClient(t.app);
    await ops.logIn('ops@example.test');
    expect((await ops.post(`/dashboard/approvals/${merchant.id}`, {})).statusCode).toBe(303);
    expect((await cqris('amount=10004&email=anyone@elsewhere.test')).statusCode).toBe(200);
    await sendDueEmails(t.deps, sender(t));
    expect(server.messages.filter((m) => m.to.includes('anyone@elsewhere.test'))).toHaveLength(2);
  });
});
