// The payer's refund notice (issue 28, section 1) through a real SMTP server: one per succeeded refund,
// queued with the success, worded for a record (no money moved by the gateway) or an acquirer's refund.
import { afterEach, describe, expect, it } from 'vitest';
import { formatRupiah } from '../../src/domain/money.js';
import { createSmtpSender } from '../../src/mail/smtp.js';
import { codeIssuers } from '../../src/payment-sources/issuers.js';
import type { CodeIssuer } from '../../src/services/deps.js';
import { sendDueEmails } from '../../src/services/email/send-due-emails.js';
import { API_BASE } from '../helpers/api.js';
import { createTestApp, type TestApp } from '../helpers/context.js';
import { startTestSmtpServer } from '../helpers/smtp-server.js';

const PAYER = 'payer@example.co.id';

let cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const fn of cleanups.reverse()) await fn();
  cleanups = [];
});

async function setup() {
  const server = await startTestSmtpServer();
  cleanups.push(() => server.close());
  const t = await createTestApp({ SMTP_URL: server.url, MAIL_FROM: 'QRIS Gateway <pay@gateway.test>' });
  cleanups.push(() => t.close());
  const mailer = createSmtpSender(t.config.smtpUrl!, t.config.mailFrom!);
  cleanups.push(() => mailer.close());
  return { server, t, mailer };
}

async function paidWithEmail(t: TestApp, email: string | null, ref = 'ORDER-9'): Promise<{ trxid: string; amount_paid: number }> {
  const query = email === null ? `amount=20000&ref=${ref}` : `amount=20000&ref=${ref}&email=${email}`;
  const created = await t.app.inject({ url: `${API_BASE}/cqris?${query}`, headers: { 'x-api-key': t.testKey } });
  const trxid = created.json().data.trxid as string;
  const paid = await t.app.inject({ method: 'POST', url: `${API_BASE}/simulate?trxid=${trxid}`, headers: { 'x-api-key': t.testKey } });
  expect(paid.statusCode, paid.body).toBe(200);
  return { trxid, amount_paid: paid.json().data.amount_paid };
}

async function refund(t: TestApp, body: Record<string, unknown>) {
  const res = await t.app.inject({ method: 'POST', url: `${API_BASE}/refund`, headers: { 'x-api-key': t.testKey }, payload: body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

describe('refund notice e-mail', () => {
  it('a recorded refund: one notice per refund, in both languages, saying plainly the gateway moved no money', async () => {
    const { server, t, mailer } = await setup();
    const tx = await paidWithEmail(t, PAYER);
    await sendDueEmails(t.deps, mailer); // the invoice was skipped (paid), the receipt sent
    const before = server.messages.length;

    await refund(t, { trxid: tx.trxid, amount: 5000, reason: 'Barang habis', reference: 'TRF-77' });
    await refund(t, { trxid: tx.trxid, reason: 'Sisa pesanan' });
    const results = await sendDueEmails(t.deps, mailer);
    expect(results.map((r) => [r.kind.replace(/^refund:rf_\w+$/, 'refund'), r.outcome.status])).toEqual([
      ['refund', 'sent'],
      ['refund', 'sent'],
    ]);
    expect(server.messages).toHaveLength(before + 2);
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
    const second = await server.messages[before + 1]!.parse();
    expect(second.subject).toContain(`Refund ${formatRupiah(tx.amount_paid - 5000)}`);
    // Nothing more is sent for them.
    expect(await sendDueEmails(t.deps, mailer)).toEqual([]);
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
});
