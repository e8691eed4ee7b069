// The daily report e-mail (issue 28, section 3): opt-in per merchant, queued after midnight WIB for the
// day that ended, sent through the e-mail outbox to the merchant's owners (not its cashiers, not other
// merchants' owners) at a real SMTP server, with the day's figures; two instances racing queue it once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatRupiah } from '../../../src/domain/money.js';
import { createSmtpSender } from '../../../src/mail/smtp.js';
import type { Deps } from '../../../src/services/deps.js';
import { sendDueEmails } from '../../../src/services/email/send-due-emails.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { queueDailyReportMails } from '../../../src/services/reports/queue-daily-report-mails.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { addUser } from '../../../src/services/users/add-user.js';
import { openDatabase } from '../../../src/storage/database.js';
import { startDailyReports } from '../../../src/workers/daily-reports.js';
import { addMerchantUser, PASSWORD, TEST_ACTOR } from '../../helpers/console.js';
import { createInput, createTestContext, seedMerchant, type TestContext } from '../../helpers/context.js';
import { cli } from '../../helpers/payment-sources.js';
import { insertRefundRow } from '../../helpers/refund-rows.js';
import { startTestSmtpServer, type TestSmtpServer } from '../../helpers/smtp-server.js';

const HOUR = 3_600_000;
const wibMidnight = (d: number) => Date.UTC(2026, 9, d) - 7 * HOUR;

let server: TestSmtpServer;
let t: TestContext;
let merchant = '';
let other = '';
let received = 0;
let refunded = 0;

beforeAll(async () => {
  server = await startTestSmtpServer();
  t = await createTestContext({ SMTP_URL: server.url, MAIL_FROM: 'QRIS Gateway <pay@gateway.test>' });
  merchant = (await seedMerchant(t.deps, 0, 'Warung Laporan')).merchant.id;
  other = (await seedMerchant(t.deps, 1, 'Toko Diam')).merchant.id;
  await addMerchantUser(t.deps, [merchant], 'owner1@warung.test');
  await addMerchantUser(t.deps, [merchant], 'owner2@warung.test');
  await addMerchantUser(t.deps, [other], 'owner@toko.test');
  await addUser(
    t.deps,
    { email: 'kasir@warung.test', password: PASSWORD, role: 'cashier', merchantIds: [merchant] },
    TEST_ACTOR,
  );
  // 3 October (WIB): two sales paid, one refunded in part (succeeded) and one failed refund, one stray payment.
  for (const [hour, amount] of [
    [10, 25_000],
    [15, 15_000],
  ] as const) {
    t.clock.ms = wibMidnight(3) + hour * HOUR;
    const { transaction } = await createTransaction(t.deps, createInput(merchant, amount, { mode: 'live' }));
    await recordPayment(t.deps, {
      merchantId: merchant,
      mode: 'live',
      source: 'simulator',
      sourcePaymentId: `m${amount}`,
      amount: transaction.total_amount,
      paidAt: t.clock.ms,
      trxid: transaction.id,
    });
    received += transaction.total_amount;
    if (amount === 25_000) {
      await insertRefundRow(t.deps, {
        transactionId: transaction.id,
        merchantId: merchant,
        amount: 5_000,
        status: 'succeeded',
        createdAt: t.clock.ms + HOUR,
        completedAt: t.clock.ms + HOUR,
      });
      refunded += 5_000;
      await insertRefundRow(t.deps, {
        transactionId: transaction.id,
        merchantId: merchant,
        amount: 7_000,
        status: 'failed',
        createdAt: t.clock.ms + HOUR,
        completedAt: t.clock.ms + HOUR,
      });
    }
  }
  t.clock.ms = wibMidnight(3) + 20 * HOUR;
  await recordPayment(t.deps, {
    merchantId: merchant,
    mode: 'live',
    source: 'feed-a',
    sourcePaymentId: 'stray',
    amount: 12_345,
    paidAt: t.clock.ms,
  });
});
afterAll(async () => {
  await t?.close();
  await server?.close();
});

describe('the daily report e-mail', () => {
  it('is off until the merchant opts in (CLI), and nothing is queued for a merchant that did not', async () => {
    t.clock.ms = wibMidnight(4) + 5 * 60_000;
    expect(await queueDailyReportMails(t.deps)).toEqual([]);
    const on = await cli(t, ['merchant', 'daily-report', merchant, 'on', '--json']);
    expect(on.json).toEqual({ merchant_id: merchant, daily_report_email: true });
    const bad = await cli(t, ['merchant', 'daily-report', merchant, 'maybe', '--json']);
    expect(bad.json!.error).toMatchObject({ code: 'invalid_parameter' });
    const unknown = await cli(t, ['merchant', 'daily-report', 'mch_nope', 'on', '--json']);
    expect(unknown.json!.error).toMatchObject({ code: 'merchant_not_found' });
  });

  it("after midnight WIB, two instances racing queue yesterday's report once, one mail per owner", async () => {
    // A second gateway instance: its own connection to the same database.
    const second = openDatabase(t.databaseUrl);
    try {
      const deps2: Deps = { ...t.deps, db: second };
      const [a, b] = await Promise.all([queueDailyReportMails(t.deps), queueDailyReportMails(deps2)]);
      expect([...a, ...b]).toEqual([{ merchantId: merchant, mails: 2 }]);
      // Later rounds (and rounds of the same day) find it done.
      expect(await queueDailyReportMails(deps2)).toEqual([]);
    } finally {
      await second.close();
    }
    const rows = await t.deps.db.selectFrom('emails').selectAll().where('kind', '=', 'daily_report').execute();
    expect(rows.map((r) => r.recipient).sort()).toEqual(['owner1@warung.test', 'owner2@warung.test']);
  });

  it('arrives at the SMTP server with the day’s figures, in text and HTML, amounts as Rp25.000', async () => {
    const senders = [
      createSmtpSender(t.config.smtpUrl!, t.config.mailFrom!),
      createSmtpSender(t.config.smtpUrl!, t.config.mailFrom!),
    ];
    try {
      // Two mailers at once: each row is claimed by one of them.
      const results = (await Promise.all(senders.map((s) => sendDueEmails(t.deps, s)))).flat();
      expect(results.map((r) => [r.kind, r.outcome.status])).toEqual([
        ['daily_report', 'sent'],
        ['daily_report', 'sent'],
      ]);
    } finally {
      for (const s of senders) s.close();
    }
    expect(server.messages.flatMap((m) => m.to).sort()).toEqual(['owner1@warung.test', 'owner2@warung.test']);
    const mail = await server.messages[0]!.parse();
    expect(mail.subject).toBe(`Laporan harian 2026-10-03 · Warung Laporan: 2 lunas, ${formatRupiah(received)}`);
    const text = mail.text!;
    expect(text).toContain('Angka hari 2026-10-03 (WIB) untuk Warung Laporan:');
    // Every payment received (the two sales and the stray one), then the figure each is in.
    expect(text).toContain(`Diterima (semua pembayaran): ${formatRupiah(received + 12_345)}`);
    expect(text).toContain('Pembayaran transaksi lunas: 2');
    expect(text).toContain(`Nominal lunas: ${formatRupiah(received)}`);
    expect(text).toContain('Di transaksi terbuka (pembayaran sebagian): Rp0');
    expect(text).toContain('Pembayaran ganda dikembalikan: Rp0');
    expect(text).toContain('Dikembalikan (refund berhasil): Rp5.000');
    expect(text).toContain('Pembayaran tak cocok: 1');
    expect(text).toContain('Jumlah tak cocok: Rp12.345');
    expect(text).toContain(`Received (every payment): ${formatRupiah(received + 12_345)}`);
    expect(text).toContain(`Paid amount: ${formatRupiah(received)}`);
    expect(text).toContain(`simulator: 2 · ${formatRupiah(received)}`);
    expect(refunded).toBe(5_000);
    const body = String(mail.html);
    expect(body).toContain(`<strong>${formatRupiah(received)}</strong>`);
    expect(body).toContain('<strong>Rp5.000</strong>');
    expect(body).toContain('Daily report');
  });

  it('is not queued again, and stops when turned off', async () => {
    t.clock.ms = wibMidnight(5) + 60_000;
    const off = await cli(t, ['merchant', 'daily-report', merchant, 'off', '--json']);
    expect(off.json).toEqual({ merchant_id: merchant, daily_report_email: false });
    expect(await queueDailyReportMails(t.deps)).toEqual([]);
    expect(await t.deps.db.selectFrom('emails').selectAll().where('kind', '=', 'daily_report').execute()).toHaveLength(
      2,
    );
  });

  it('the worker queues it by itself once the day has ended', async () => {
    await cli(t, ['merchant', 'daily-report', merchant, 'on', '--json']);
    t.clock.ms = wibMidnight(6) + 60_000;
    const worker = startDailyReports(t.deps, 20);
    try {
      const queued = () =>
        t.deps.db
          .selectFrom('emails')
          .selectAll()
          .where('kind', '=', 'daily_report')
          .where('transaction_id', 'like', '%:2026-10-05:%')
          .execute();
      const end = Date.now() + 15_000;
      while ((await queued()).length < 2) {
        if (Date.now() > end) throw new Error('the worker queued no report in 15 s');
        await new Promise((r) => setTimeout(r, 20));
      }
      expect((await queued()).map((r) => r.recipient).sort()).toEqual(['owner1@warung.test', 'owner2@warung.test']);
    } finally {
      await worker.stop();
    }
  });
});
