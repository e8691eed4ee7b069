import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { MAX_EMAIL_ATTEMPTS, nextEmailAttemptAt } from '../../src/domain/mail-retry.js';
import { describeSmtpUrl, smtpOptions } from '../../src/mail/smtp.js';
import { renderMail, type MailInput } from '../../src/mail/templates.js';
import type { PaymentsTable, TransactionsTable } from '../../src/storage/schema.js';

const T0 = Date.UTC(2026, 10, 22, 4, 27); // 11:27 WIB

const tx = (over: Partial<TransactionsTable> = {}): TransactionsTable => ({
  id: 'trx_abc',
  merchant_id: 'mch_1',
  mode: 'live',
  status: 'pending',
  amount: 10_000,
  unique_code: 339,
  total_amount: 10_339,
  currency: 'IDR',
  email: 'payer@example.co.id',
  ref: null,
  qris: '00020101021226300014ID.CO.EXAMPLE.WWW6304ABCD',
  created_at: T0,
  expires_at: T0 + 15 * 60_000,
  paid_at: null,
  paid_late: 0,
  payment_id: null,
  updated_at: T0,
  source_id: null,
  acquirer_reference: null,
  cancelled_at: null,
  ...over,
});

const input = (over: Partial<MailInput> = {}): MailInput => ({
  kind: 'invoice',
  merchantName: 'Warung Sederhana',
  transaction: tx(),
  payment: null,
  checkoutUrl: 'https://pay.example/checkout/trx_abc',
  ...over,
});

describe('mail settings', () => {
  it('are off by default and poll every 5 s', () => {
    const c = loadConfig({});
    expect([c.smtpUrl, c.mailFrom, c.mailIntervalMs]).toEqual([null, null, 5000]);
  });

  it('accept smtp:// and smtps:// with credentials, and a named sender', () => {
    const c = loadConfig({
      SMTP_URL: 'smtps://u:p%40ss@mail.example.com:465',
      MAIL_FROM: 'Toko Kita <Pay@Example.COM>',
      MAIL_INTERVAL_MS: '250',
    });
    expect(c.smtpUrl).toBe('smtps://u:p%40ss@mail.example.com:465');
    expect(c.mailFrom).toEqual({ name: 'Toko Kita', address: 'Pay@example.com' });
    expect(c.mailIntervalMs).toBe(250);
    expect(loadConfig({ MAIL_FROM: 'pay@example.com' }).mailFrom).toEqual({ name: null, address: 'pay@example.com' });
  });

  it('refuse bad values without echoing the password', () => {
    const bad = [
      { SMTP_URL: 'http://u:secret@mail.example.com', MAIL_FROM: 'a@example.com' },
      { SMTP_URL: 'smtp://u:secret@mail.example.com/x?pool=true', MAIL_FROM: 'a@example.com' },
      { SMTP_URL: 'not a url secret', MAIL_FROM: 'a@example.com' },
      { SMTP_URL: 'smtp://u:secret@mail.example.com' },
      { SMTP_URL: 'smtp://u:secret%zz@mail.example.com', MAIL_FROM: 'a@example.com' },
    ];
    for (const env of bad) {
      expect(() => loadConfig(env)).toThrow(/SMTP_URL|MAIL_FROM/);
      try {
        loadConfig(env);
      } catch (err) {
        expect((err as Error).message).not.toContain('secret');
      }
    }
    for (const from of [
      'nobody',
      'a@localhost',
      'Evil\r\nBcc: x@example.com <a@example.com>',
      '"Q" <a@example.com',
      'x <y> <a@example.com>',
    ]) {
      expect(() => loadConfig({ MAIL_FROM: from }), from).toThrow(/MAIL_FROM/);
    }
    expect(() => loadConfig({ MAIL_INTERVAL_MS: '5s' })).toThrow(/MAIL_INTERVAL_MS/);
  });

  it('turn into nodemailer options with decoded credentials; logs see no password', () => {
    expect(smtpOptions('smtp://127.0.0.1:2525')).toMatchObject({ host: '127.0.0.1', port: 2525, secure: false });
    expect(smtpOptions('smtp://127.0.0.1:2525').auth).toBeUndefined();
    const o = smtpOptions('smtps://mailer%40shop:p%40ss%3Aw@mail.example.com');
    expect(o).toMatchObject({ host: 'mail.example.com', secure: true, auth: { user: 'mailer@shop', pass: 'p@ss:w' } });
    expect(o.port).toBeUndefined();
    expect(o.socketTimeout).toBeGreaterThan(0);
    expect(describeSmtpUrl('smtps://mailer:p%40ss@mail.example.com:465')).toBe(
      'smtps://mailer:***@mail.example.com:465',
    );
  });
});

describe('e-mail retry schedule', () => {
  it('backs off 1 m, 5 m, 30 m, 2 h, 6 h, 12 h, then gives up after about 20 hours', () => {
    const mid = () => 0.5;
    const delays = [1, 2, 3, 4, 5, 6].map((n) => nextEmailAttemptAt(n, 0, mid)! / 60_000);
    expect(delays).toEqual([1, 5, 30, 120, 360, 720]);
    expect(nextEmailAttemptAt(MAX_EMAIL_ATTEMPTS, 0, mid)).toBeNull();
    expect(nextEmailAttemptAt(1, 0, () => 0)).toBe(54_000);
    expect(nextEmailAttemptAt(1, 0, () => 1)).toBe(66_000);
  });
});

describe('renderMail', () => {
  it('shows the total with its unique code, the expiry in WIB and the QR as an inline image', () => {
    const mail = renderMail(input());
    expect(mail.subject).toBe('Tagihan / Invoice Rp10.339 – Warung Sederhana');
    expect(mail.text).toContain('Rp10.339 (Rp10.000 + kode unik 339)');
    expect(mail.text).toContain('Berlaku hingga: 22 Nov 2026, 11.42.00 WIB');
    expect(mail.text.indexOf('Tagihan dari')).toBeLessThan(mail.text.indexOf('Invoice from'));
    expect(mail.attachments).toHaveLength(1);
    expect(mail.html).toContain(`src="cid:${mail.attachments[0]!.cid}"`);
    expect(mail.text).not.toContain('Sandbox');
  });

  it('shows no breakdown when there is no unique code', () => {
    const mail = renderMail(input({ transaction: tx({ unique_code: 0, total_amount: 10_000 }) }));
    expect(mail.text).toContain('Total yang harus dibayar:\n  Rp10.000\n');
    expect(mail.text).not.toContain('kode unik 0');
  });

  it('keeps a merchant name on one line in the subject and escapes it in HTML', () => {
    const mail = renderMail(input({ merchantName: 'Toko\r\nBcc: evil@example.com <script>' }));
    expect(mail.subject).toBe('Tagihan / Invoice Rp10.339 – Toko Bcc: evil@example.com <script>');
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('&lt;script&gt;');
  });

  it('receipt: amount, time, issuer and reference, and a note when paid late', () => {
    const payment: PaymentsTable = {
      id: 'pay_1',
      merchant_id: 'mch_1',
      mode: 'live',
      source: 'feed',
      source_payment_id: 'x',
      amount: 10_339,
      paid_at: T0 + 20 * 60_000,
      received_at: T0 + 20 * 60_000,
      reference: 'RRN-1&2',
      payer_name: 'Budi',
      issuer: 'GoPay',
      status: 'matched',
      reason: null,
      transaction_id: 'trx_abc',
      compared_transaction_id: null,
      raw: null,
    };
    const paid = tx({ status: 'paid', paid_at: payment.paid_at, paid_late: 1, payment_id: 'pay_1' });
    const mail = renderMail(input({ kind: 'receipt', transaction: paid, payment }));
    expect(mail.subject).toBe('Bukti pembayaran / Receipt Rp10.339 – Warung Sederhana');
    expect(mail.attachments).toEqual([]);
    for (const line of [
      'Jumlah dibayar: Rp10.339',
      'Waktu pembayaran: 22 Nov 2026, 11.47.00 WIB',
      'Dibayar melalui: GoPay',
      'Referensi pembayaran: RRN-1&2',
      'Paid with: GoPay',
    ]) {
      expect(mail.text).toContain(line);
    }
    expect(mail.html).toContain('RRN-1&amp;2');
    expect(mail.text).toContain('setelah batas waktu tagihan');
    expect(mail.text).not.toContain('Budi');
    const onTime = renderMail(
      input({
        kind: 'receipt',
        transaction: { ...paid, paid_late: 0 },
        payment: { ...payment, issuer: null, reference: null },
      }),
    );
    expect(onTime.text).not.toContain('setelah batas waktu');
    expect(onTime.text).not.toContain('Dibayar melalui');
  });
});
