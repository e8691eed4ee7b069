// The payer's refund notice (issue 28, section 1) through a real SMTP server: one per succeeded refund,
// queued with the success, worded for a record (no money moved by the gateway) or an acquirer's refund.
import { afterEach, describe, expect, it } from 'vitest';
import { formatRupiah } from '../../../src/domain/money.js';
import { createSmtpSender } from '../../../src/mail/smtp.js';
import { codeIssuers } from '../../../src/payment-sources/issuers.js';
import type { CodeIssuer } from '../../../src/services/deps.js';
import { sendDueEmails } from '../../../src/services/email/send-due-emails.js';
import { API_BASE } from '../../helpers/api.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { startTestSmtpServer } from '../../helpers/smtp-server.js';

const PAYER = 'payer@example.co.id';

let cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const fn of cleanups.reverse()) await fn();
  cleanups = [];
});

// Refunds sent together to one transaction each wait for its row's lock on PostgreSQL, holding a pooled
// connection: the wait for a connection is set past any machine's pace (5 s by default), so a loaded CI
// host makes them slower, never 503.
const QUEUED_ON_ONE_ROW = { DATABASE_CONNECT_TIMEOUT_MS: '120000' };

async function setup(env: Record<string, string> = {}) {
  const server = await startTestSmtpServer();
  cleanups.push(() => server.close());
  const t = await createTestApp({ SMTP_URL: server.url, MAIL_FROM: 'QRIS Gateway <pay@gateway.test>', ...env });
  cleanups.push(() => t.close());
  const mailer = createSmtpSender(t.config.smtpUrl!, t.config.mailFrom!);
  cleanups.push(() => mailer.close());
  return { server, t, mailer };
}

async function paidWithEmail(
  t: TestApp,
  email: string | null,
  ref = 'ORDER-9',
): Promise<{ trxid: string; amount_paid: number }> {
  const query = email === null ? `amount=20000&ref=${ref}` : `amount=20000&ref=${ref}&email=${email}`;
  const created = await t.app.inject({ url: `${API_BASE}/cqris?${query}`, headers: { 'x-api-key': t.testKey } });
  const trxid = created.json().data.trxid as string;
  const paid = await t.app.inject({
    method: 'POST',
    url: `${API_BASE}/simulate?trxid=${trxid}`,
    headers: { 'x-api-key': t.testKey },
  });
  expect(paid.statusCode, paid.body).toBe(200);
  return { trxid, amount_paid: paid.json().data.amount_paid };
}

async function refund(t: TestApp, body: Record<string, unknown>) {
  const res = await t.app.inject({
    method: 'POST',
    url: `${API_BASE}/refund`,
    headers: { 'x-api-key': t.testKey },
    payload: body,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

describe('refund notice e-mail', () => {
  it('a recorded refund: its notice in both languages, saying plainly the gateway moved no money; a refund soon after waits for the window', async () => {
    const { server, t, mailer } = await setup();
    const tx = await paidWithEmail(t, PAYER);
    await sendDueEmails(t.deps, mailer); // the invoice was skipped (paid), the receipt sent
    const before = server.messages.length;

    await refund(t, { trxid: tx.trxid, amount: 5000, reason: 'Barang habis', reference: 'TRF-77' });
    const results = await sendDueEmails(t.deps, mailer);
    expect(results.map((r) => [r.kind.replace(/^refunds:\d+$/, 'refunds'), r.outcome.status])).toEqual([
      ['refunds', 'sent'],
    ]);
    expect(server.messages).toHaveLength(before + 1);
    const first = await server.messages[before]!.parse();
    expect(server.messages[before]!.to).toEqual([PAYER]);
    expect(first.subject).toMatch(/^\[Sandbox\] Dana dikembalikan \/ Refund Rp5\.000 – /);
    const text = first.text!;
    expect(text.indexOf('Pengembalian dana Rp5.000')).toBeGreaterThan(-1);
    expect(text.indexOf('Pengembalian dana Rp5.000')).toBeLessThan(text.indexOf('Refund of Rp5.000'));
    expect(text).toContain('This payment service moved no money');
    expect(text).toContain('Layanan pembayaran ini tidak memindahkan dana');
    expect(text).toContain('Barang habis');
    expect(text).toContain('TRF-77');
    expect(text).toContain('ORDER-9');
    expect(text).toContain(tx.trxid);

    // The rest, a minute later: its notice waits for the window (an hour by default) after the first.
    t.clock.advance(60_000);
    await refund(t, { trxid: tx.trxid, reason: 'Sisa pesanan' });
    expect(await sendDueEmails(t.deps, mailer)).toEqual([]);
    t.clock.advance(3_600_000 - 60_000 - 1);
    expect(await sendDueEmails(t.deps, mailer)).toEqual([]);
    t.clock.advance(1);
    expect((await sendDueEmails(t.deps, mailer)).map((r) => r.outcome.status)).toEqual(['sent']);
    const second = await server.messages[before + 1]!.parse();
    expect(second.subject).toContain(`Refund ${formatRupiah(tx.amount_paid - 5000)}`);
    expect(second.text).toContain('Sisa pesanan');
    expect(second.text).not.toContain('Barang habis');
    expect(second.text).toContain(`Refunded in total: ${formatRupiah(tx.amount_paid)}`);
    // Nothing more is sent for them.
    t.clock.advance(10 * 3_600_000);
    expect(await sendDueEmails(t.deps, mailer)).toEqual([]);
    expect(server.messages).toHaveLength(before + 2);
  });

  it("an acquirer's refund is worded as money sent back; a failed one and a transaction without an address send nothing", async () => {
    const { server, t, mailer } = await setup();
    const answers: Array<Awaited<ReturnType<CodeIssuer['refund']>>> = [
      { status: 'refused', code: 'refund_refused', message: 'declined' },
      { status: 'succeeded', reference: 'ACQ-9', completedAt: t.clock.now() },
    ];
    const issuer: CodeIssuer = {
      refunds: 'acquirer',
      issue: async () => {
        throw new Error('not used');
      },
      cancel: async () => 'cancelled',
      refund: async () => answers.shift() ?? { status: 'succeeded', reference: null, completedAt: t.clock.now() },
    };
    t.deps.issuers = { forMerchant: codeIssuers.forMerchant, forTransaction: async () => issuer };
    const tx = await paidWithEmail(t, PAYER);
    await sendDueEmails(t.deps, mailer);
    const before = server.messages.length;
    const refused = await t.app.inject({
      method: 'POST',
      url: `${API_BASE}/refund`,
      headers: { 'x-api-key': t.testKey },
      payload: { trxid: tx.trxid, reason: 'r' },
    });
    expect(refused.statusCode).toBe(422);
    expect(await sendDueEmails(t.deps, mailer)).toEqual([]);
    await refund(t, { trxid: tx.trxid, amount: 3000, reason: 'Rusak' });
    expect((await sendDueEmails(t.deps, mailer)).map((r) => r.outcome.status)).toEqual(['sent']);
    const mail = await server.messages[before]!.parse();
    expect(mail.text).toContain('has refunded Rp3.000 to you');
    expect(mail.text).toContain('telah mengembalikan Rp3.000');
    expect(mail.text).toContain('ACQ-9');
    expect(mail.text).not.toContain('moved no money');

    const silent = await paidWithEmail(t, null, 'ORDER-10');
    await refund(t, { trxid: silent.trxid, amount: 1000, reason: 'r' });
    expect(await sendDueEmails(t.deps, mailer)).toEqual([]);
  });

  // Issue 35, finding 2: one paid static-QRIS transaction allowed a refund per rupiah, each mailing the payer.
  it('60 concurrent 1-rupiah refunds of one transaction: the payer gets one notice, stating the total of all 60', async () => {
    const { server, t, mailer } = await setup({ REFUND_MAX_PER_TRANSACTION: '1000', ...QUEUED_ON_ONE_ROW });
    const tx = await paidWithEmail(t, PAYER);
    await sendDueEmails(t.deps, mailer);
    const before = server.messages.length;

    const answers = await Promise.all(
      // 60, not the review's 200: on PostgreSQL each refund waits for the one row's lock, and 200 of them
      // queued on a loaded CI machine passed the pool's 5 s wait for a connection (503, as designed).
      Array.from({ length: 60 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: `${API_BASE}/refund`,
          headers: { 'x-api-key': t.testKey },
          payload: { trxid: tx.trxid, amount: 1, reason: `Refund ${i + 1}` },
        }),
      ),
    );
    // The bound on refunds per transaction (20 by default) refuses the rest; raised here, so all 60 land.
    for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    await sendDueEmails(t.deps, mailer);
    // A day later, nothing else has been sent either.
    t.clock.advance(24 * 3_600_000);
    await sendDueEmails(t.deps, mailer);
    expect(server.messages).toHaveLength(before + 1);
    const mail = await server.messages[before]!.parse();
    expect(server.messages[before]!.to).toEqual([PAYER]);
    expect(mail.subject).toMatch(/^\[Sandbox\] Dana dikembalikan \/ Refund Rp60 – /);
    expect(mail.text).toContain('Pengembalian dana Rp60');
    expect(mail.text).toContain('Refund of Rp60');
    expect(mail.text).toContain('Refunds: 60');
    expect(mail.text).toContain('and 50 more');
    expect(mail.html).toContain('Rp60');
  });

  it('refunds racing the mailer: every refund is told in exactly one notice, at most one a window, their amounts summing to the total', async () => {
    const { server, t, mailer } = await setup({ REFUND_MAX_PER_TRANSACTION: '1000', ...QUEUED_ON_ONE_ROW });
    const tx = await paidWithEmail(t, PAYER);
    await sendDueEmails(t.deps, mailer);
    const before = server.messages.length;
    let n = 0;
    const wave = (count: number) =>
      Array.from({ length: count }, () => {
        const amount = ++n;
        return t.app
          .inject({
            method: 'POST',
            url: `${API_BASE}/refund`,
            headers: { 'x-api-key': t.testKey },
            payload: { trxid: tx.trxid, amount, reason: `r${amount}` },
          })
          .then((res) => expect(res.statusCode, res.body).toBe(200));
      });

    // Refunds, then more of them while the mailer sends the notice they joined, then more after it.
    await Promise.all(wave(20));
    await Promise.all([sendDueEmails(t.deps, mailer), ...wave(20)]);
    expect(server.messages.length - before).toBe(1);
    await Promise.all(wave(20));
    await sendDueEmails(t.deps, mailer);
    // The window has not passed: the rest wait for the next notice.
    expect(server.messages.length - before).toBe(1);
    t.clock.advance(3_600_000);
    await sendDueEmails(t.deps, mailer);
    t.clock.advance(3_600_000);
    await sendDueEmails(t.deps, mailer);
    const sent = server.messages.slice(before);
    expect(sent).toHaveLength(2);
    const told = await Promise.all(
      sent.map(async (m) => {
        const mail = await m.parse();
        return {
          amount: Number(/Refund Rp([\d.]+) –/.exec(mail.subject!)![1]!.replaceAll('.', '')),
          count: /^Refunds: (\d+)$/m.exec(mail.text!)?.[1],
        };
      }),
    );
    expect(told[0]!.amount + told[1]!.amount).toBe((60 * 61) / 2);
    expect(Number(told[0]!.count ?? 1) + Number(told[1]!.count ?? 1)).toBe(60);
  });

  it('REFUND_NOTICE_WINDOW_SECONDS: a refund after a quiet window is told at once; those within one are summed up in the next notice', async () => {
    const { server, t, mailer } = await setup({ REFUND_NOTICE_WINDOW_SECONDS: '600' });
    const tx = await paidWithEmail(t, PAYER);
    await sendDueEmails(t.deps, mailer);
    const before = server.messages.length;
    const sentNow = async () => (await sendDueEmails(t.deps, mailer)).filter((r) => r.outcome.status === 'sent').length;

    await refund(t, { trxid: tx.trxid, amount: 1000, reason: 'Satu' });
    expect(await sentNow()).toBe(1);
    t.clock.advance(10_000);
    await refund(t, { trxid: tx.trxid, amount: 200, reason: 'Dua' });
    t.clock.advance(10_000);
    await refund(t, { trxid: tx.trxid, amount: 300, reason: 'Tiga', reference: 'TRF-3' });
    expect(await sentNow()).toBe(0);
    t.clock.advance(600_000 - 20_000);
    expect(await sentNow()).toBe(1);
    const summary = await server.messages[before + 1]!.parse();
    expect(summary.subject).toContain('Refund Rp500 –');
    expect(summary.text).toContain('Refunds: 2');
    expect(summary.text).toContain('Dua');
    expect(summary.text).toContain('Tiga');
    expect(summary.text).toContain('TRF-3');
    expect(summary.text).not.toContain('Satu');
    expect(summary.text).toContain('Refunded in total: Rp1.500');
    expect(summary.text).toContain('Total dikembalikan: Rp1.500');

    // Quiet for a whole window since the last notice: the next refund is told at once.
    t.clock.advance(600_000);
    await refund(t, { trxid: tx.trxid, amount: 50, reason: 'Empat' });
    expect(await sentNow()).toBe(1);
    expect((await server.messages[before + 2]!.parse()).subject).toContain('Refund Rp50 –');
    expect(server.messages).toHaveLength(before + 3);
  });

  it('a notice of one refund queued before notices were gathered (kind refund:<id>) is still sent, once', async () => {
    const { server, t, mailer } = await setup();
    const tx = await paidWithEmail(t, PAYER);
    await sendDueEmails(t.deps, mailer);
    const before = server.messages.length;
    const { refund: made } = await refund(t, { trxid: tx.trxid, amount: 700, reason: 'Lama' });
    // As migration 018's code queued it: one row per refund, and the refund naming no notice.
    await t.deps.db
      .deleteFrom('emails')
      .where('transaction_id', '=', tx.trxid)
      .where('kind', '!=', 'receipt')
      .where('kind', '!=', 'invoice')
      .execute();
    await t.deps.db.updateTable('refunds').set({ notice_due: null }).where('id', '=', made.id).execute();
    await t.deps.db
      .insertInto('emails')
      .values({
        id: 'eml_legacy1',
        merchant_id: t.merchant.id,
        transaction_id: tx.trxid,
        kind: `refund:${made.id}`,
        recipient: PAYER,
        status: 'pending',
        attempts: 0,
        next_attempt_at: t.clock.now(),
        locked_until: null,
        last_error: null,
        created_at: t.clock.now(),
        sent_at: null,
      })
      .execute();
    expect((await sendDueEmails(t.deps, mailer)).map((r) => [r.kind, r.outcome.status])).toEqual([
      [`refund:${made.id}`, 'sent'],
    ]);
    const mail = await server.messages[before]!.parse();
    expect(mail.subject).toContain('Refund Rp700 –');
    expect(mail.text).toContain('Lama');
    expect(await sendDueEmails(t.deps, mailer)).toEqual([]);
  });
});
