// Issue 37, section 6: a payment source has a name (`source add --name`, the console's add form), held to
// a merchant name's rules, escaped, and shown where its id was shown to people: the sources page, the
// payments list, a transaction's page and the reports page's per-source table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportMailKey } from '../../../src/domain/daily-report.js';
import { wibDay } from '../../../src/domain/wib.js';
import { renderQueuedDailyReport } from '../../../src/services/reports/render-daily-report-mail.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { ConsoleClient, addMerchantUser, noticeOf } from '../../helpers/console.js';
import { createInput, createTestApp, type TestApp } from '../../helpers/context.js';
import { cli } from '../../helpers/payment-sources.js';

describe('payment source names', () => {
  let t: TestApp;
  let owner: ConsoleClient;
  const sourceCount = async () => (await t.deps.db.selectFrom('payment_sources').select('id').execute()).length;

  beforeAll(async () => {
    t = await createTestApp({ CONSOLE: 'true' });
    await addMerchantUser(t.deps, [t.merchant.id], 'owner@example.test');
    owner = new ConsoleClient(t.app);
    expect((await owner.logIn('owner@example.test')).statusCode).toBe(303);
  });
  afterAll(async () => t?.close());

  it('source add --name names it for every kind, and refuses a link or an over-long name before storing anything', async () => {
    const added = await cli(t, [
      'source',
      'add',
      '--merchant',
      t.merchant.id,
      '--type',
      'webhook',
      '--mode',
      'test',
      '--name',
      ' HP kasir ',
      '--json',
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.json!.name).toBe('HP kasir');
    const row = await t.deps.db
      .selectFrom('payment_sources')
      .selectAll()
      .where('id', '=', added.json!.id)
      .executeTakeFirstOrThrow();
    expect(row.name).toBe('HP kasir');
    // Stored with the source in its one unit of work: one audit row (source.add) that names it, no second write.
    const audits = await t.deps.db
      .selectFrom('audit_log')
      .selectAll()
      .where('subject_id', '=', added.json!.id)
      .execute();
    expect(audits.map((a) => a.action)).toEqual(['source.add']);
    expect(JSON.parse(audits[0]!.details as string)).toMatchObject({ type: 'webhook', name: 'HP kasir' });
    const listed = await cli(t, ['source', 'list', '--json']);
    expect(listed.json!.items.find((s: { id: string }) => s.id === added.json!.id).name).toBe('HP kasir');

    const before = await sourceCount();
    for (const bad of ['bayar di www.evil.example', 'x'.repeat(61), 'HP\nkasir']) {
      const refused = await cli(t, [
        'source',
        'add',
        '--merchant',
        t.merchant.id,
        '--type',
        'webhook',
        '--name',
        bad,
        '--json',
      ]);
      expect(refused.code).not.toBe(0);
      expect(refused.json!.error.param ?? refused.json!.error.code).toBeTruthy();
    }
    expect(await sourceCount()).toBe(before);
    // Without --name: unnamed, as before.
    const plain = await cli(t, ['source', 'add', '--merchant', t.merchant.id, '--type', 'webhook', '--json']);
    expect(plain.json!.name).toBeUndefined();
  });

  it('the console form names it, escaped, refuses a link, and the name shows on payments, the transaction and the report', async () => {
    const res = await owner.post(
      '/dashboard/sources',
      { type: 'webhook', merchant: t.merchant.id, mode: 'test', name: 'Kasir <b>2</b>' },
      '/dashboard/sources',
    );
    expect(res.statusCode).toBe(201);
    const source = await t.deps.db
      .selectFrom('payment_sources')
      .selectAll()
      .where('name', '=', 'Kasir <b>2</b>')
      .executeTakeFirstOrThrow();
    const page = (await owner.get('/dashboard/sources')).body;
    expect(page).toContain('Kasir &lt;b&gt;2&lt;/b&gt;');
    expect(page).not.toContain('<b>2</b>');

    const before = await sourceCount();
    const refused = await owner.post(
      '/dashboard/sources',
      { type: 'webhook', merchant: t.merchant.id, mode: 'test', name: 'see http://evil.example' },
      '/dashboard/sources',
    );
    expect(refused.statusCode).toBe(303);
    expect(noticeOf((await owner.get('/dashboard/sources')).body)).toContain('name must not contain');
    expect(await sourceCount()).toBe(before);

    // A payment learned by it pays a test transaction.
    const { transaction } = await createTransaction(t.deps, createInput(t.merchant.id, 41_000));
    const paid = await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'test',
      source: source.id,
      sourcePaymentId: 'named-1',
      amount: transaction.total_amount,
      paidAt: t.deps.now(),
    });
    expect(paid.transaction?.id).toBe(transaction.id);
    const escaped = 'Kasir &lt;b&gt;2&lt;/b&gt;';
    expect((await owner.get('/dashboard/payments?status=matched&mode=test')).body).toContain(escaped);
    expect((await owner.get(`/dashboard/transactions/${transaction.id}`)).body).toContain(escaped);
    const report = (await owner.get('/dashboard/reports?mode=test')).body;
    expect(report).toContain(escaped);
    expect(report).toContain(source.id);
  });

  it('the daily report mail lists a named source by its name and id, escaped in its HTML', async () => {
    const added = await cli(t, [
      'source',
      'add',
      '--merchant',
      t.merchant.id,
      '--type',
      'webhook',
      '--name',
      'BCA <i>toko</i>',
      '--json',
    ]);
    const id = added.json!.id as string;
    const { transaction } = await createTransaction(t.deps, createInput(t.merchant.id, 77_000, { mode: 'live' }));
    const paidAt = t.deps.now();
    const paid = await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'live',
      source: id,
      sourcePaymentId: 'mail-1',
      amount: transaction.total_amount,
      paidAt,
    });
    expect(paid.transaction?.id).toBe(transaction.id);
    const mail = (await renderQueuedDailyReport(t.deps, reportMailKey(t.merchant.id, wibDay(paidAt), 'usr_x')))!;
    expect(mail.text).toContain(`BCA <i>toko</i> (${id})`);
    expect(mail.html).toContain(`BCA &lt;i&gt;toko&lt;/i&gt; (${id})`);
    expect(mail.html).not.toContain('<i>toko</i>');
  });
});
