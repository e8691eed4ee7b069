// A transaction's refund card in the console (issue 28, section 1): the form on a paid transaction, the
// record of a static-QRIS code said plainly, refusals as notices, CSRF, merchants kept apart, cashiers kept out.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { addUser } from '../../../src/services/users/add-user.js';
import { addMerchantUser, addOperator, ConsoleClient, PASSWORD, TEST_ACTOR } from '../../helpers/console.js';
import { createInput, createTestApp, seedMerchant, type TestApp } from '../../helpers/context.js';

const LINK_REFUSED =
  'The reason and the reference are shown to the payer, so they may not contain a link or an address (a URL, www., a domain such as example.com, an e-mail or IP address); after a full stop, write a space. Nothing was changed.';
const notice = (body: string) =>
  /<p class="notice (success|error)" role="(?:status|alert)">([^<]*)<\/p>/.exec(body)?.slice(1, 3) ?? null;

describe('console refunds', () => {
  let t: TestApp;
  let shop: ConsoleClient;

  beforeEach(async () => {
    t = await createTestApp();
    await addOperator(t.deps);
    await addMerchantUser(t.deps, [t.merchant.id]);
    shop = new ConsoleClient(t.app);
    await shop.logIn('shop@example.test');
  });
  afterEach(async () => t.close());

  async function paid(merchantId = t.merchant.id, amount = 20_000) {
    const tx = (await createTransaction(t.deps, createInput(merchantId, amount))).transaction;
    await simulatePayment(t.deps, { merchantId, mode: 'test' }, tx.id);
    const row = await t.deps.db
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', tx.id)
      .executeTakeFirstOrThrow();
    return { ...row, amount_paid: row.amount_paid ?? 0 };
  }
  const row = (id: string) =>
    t.deps.db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('records a partial refund of a static-QRIS code, says the gateway moved no money, lists it, audits the user; then the rest', async () => {
    const tx = await paid();
    const detail = `/dashboard/transactions/${tx.id}`;
    const page = await shop.get(detail);
    expect(page.body).toContain('The gateway cannot move this money: record a refund you paid back yourself');
    expect(page.body).toMatch(new RegExp(`<input id="refund-amount" name="amount"[^>]*value="${tx.amount_paid}"`));
    expect(page.body).toContain('<label for="refund-reference">');

    const res = await shop.post(
      `${detail}/refund`,
      { amount: '5000', reason: 'Barang habis', reference: 'TRF-1' },
      detail,
    );
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(detail);
    const after = await shop.get(detail);
    expect(notice(after.body)).toEqual(['success', 'The refund of Rp5.000 is recorded. The gateway moved no money.']);
    expect(after.body).toContain('<dt>Refunded</dt><dd>Rp5.000</dd>');
    // Still paid, and said to be partly refunded beside it; in the list and the CSV as well.
    expect(after.body).toContain(
      '<span class="badge paid">Paid</span> <span class="badge refunded">partly refunded</span>',
    );
    expect((await shop.get('/dashboard/transactions')).body).toContain(
      '<span class="badge refunded">partly refunded</span>',
    );
    const csvRow = async () => {
      const lines = (await shop.get('/dashboard/transactions.csv')).body.trim().split(/\r?\n/);
      const header = lines[0]!.split(',');
      const cells = lines.find((l) => l.startsWith(tx.id))!.split(',');
      return [cells[header.indexOf('refunded_amount')], cells[header.indexOf('refund_status')]];
    };
    expect(await csvRow()).toEqual(['5000', 'partial']);
    expect(after.body).toMatch(
      /<li id="refund-rf_\w+"><strong>Rp5\.000<\/strong> <span class="badge ok">succeeded<\/span> <span class="muted">\(recorded, no money moved\)<\/span><br>Barang habis · <span class="mono">TRF-1<\/span>/,
    );
    expect(after.body).toContain('asked by user:shop@example.test');
    expect(after.body).toMatch(
      new RegExp(`<input id="refund-amount" name="amount"[^>]*value="${tx.amount_paid - 5000}"`),
    );
    const audit = await t.deps.db.selectFrom('audit_log').selectAll().where('subject_id', '=', tx.id).execute();
    expect(audit.map((a) => [a.actor, a.action])).toEqual([['user:shop@example.test', 'transaction.refund']]);

    await shop.post(`${detail}/refund`, { amount: String(tx.amount_paid - 5000), reason: 'Sisa' }, detail);
    const done = await shop.get(detail);
    expect(done.body).toContain('Everything it received has been refunded.');
    expect(done.body).toContain('<span class="badge paid">Paid</span> <span class="badge refunded">refunded</span>');
    expect(await csvRow()).toEqual([String(tx.amount_paid), 'full']);
    expect(done.body).not.toContain('id="refund-amount"');
    expect((await row(tx.id)).refunded_amount).toBe(tx.amount_paid);
  });

  it('turns refusals and bad input into notices that change nothing; without CSRF nothing happens', async () => {
    const tx = await paid();
    const detail = `/dashboard/transactions/${tx.id}`;
    const cases: Array<[Record<string, string>, string]> = [
      [
        { amount: String(tx.amount_paid + 1), reason: 'x' },
        'That is more than remains to refund. Nothing was changed.',
      ],
      [
        { amount: 'abc', reason: 'x' },
        'Check the amount (a whole number of rupiah), the reason (required, at most 256 characters) and the reference. Nothing was changed.',
      ],
      [
        { amount: '1000', reason: '  ' },
        'Check the amount (a whole number of rupiah), the reason (required, at most 256 characters) and the reference. Nothing was changed.',
      ],
      // Issue 35, finding 2: the payer reads both in the gateway's mail.
      [{ amount: '1000', reason: 'see https://evil.example/verify' }, LINK_REFUSED],
      [{ amount: '1000', reason: 'Verifikasi di evil\uFF0Eexample' }, LINK_REFUSED],
      [{ amount: '1000', reason: 'Barang habis', reference: 'x@evil.example' }, LINK_REFUSED],
    ];
    for (const [fields, text] of cases) {
      const res = await shop.post(`${detail}/refund`, fields, detail);
      expect(res.statusCode).toBe(303);
      expect(notice((await shop.get(detail)).body)).toEqual(['error', text]);
    }
    const pending = (await createTransaction(t.deps, createInput(t.merchant.id, 21_000))).transaction;
    expect((await shop.get(`/dashboard/transactions/${pending.id}`)).body).not.toContain('id="refund-amount"');
    await shop.post(`/dashboard/transactions/${pending.id}/refund`, { reason: 'x' }, detail);
    expect(notice((await shop.get(`/dashboard/transactions/${pending.id}`)).body)).toEqual([
      'error',
      'This transaction is not paid: there is nothing to refund. Nothing was changed.',
    ]);

    const forged = await t.app.inject({
      method: 'POST',
      url: `${detail}/refund`,
      headers: { cookie: shop.jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'reason=x&amount=1000',
    });
    expect(forged.statusCode).toBe(403);
    expect(await row(tx.id)).toMatchObject({ refunded_amount: 0, refund_held: 0, refund_count: 0 });
    expect(await t.deps.db.selectFrom('refunds').selectAll().execute()).toEqual([]);
  });

  it("another merchant's transaction is a 404 to refund; a cashier sees no form and its post is a 404", async () => {
    const other = await seedMerchant(t.deps, 1, 'Other Shop');
    const theirs = await paid(other.merchant.id);
    const res = await shop.post(
      `/dashboard/transactions/${theirs.id}/refund`,
      { reason: 'x' },
      '/dashboard/transactions',
    );
    expect(res.statusCode).toBe(404);

    await addUser(
      t.deps,
      { email: 'kasir@example.test', password: PASSWORD, role: 'cashier', merchantIds: [t.merchant.id] },
      TEST_ACTOR,
    );
    const cashier = new ConsoleClient(t.app);
    await cashier.logIn('kasir@example.test');
    const mine = await paid();
    const page = await cashier.get(`/dashboard/transactions/${mine.id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('id="refund-amount"');
    const post = await cashier.post(
      `/dashboard/transactions/${mine.id}/refund`,
      { reason: 'x' },
      `/dashboard/transactions/${mine.id}`,
    );
    expect(post.statusCode).toBe(404);
    expect(await row(theirs.id)).toMatchObject({ refunded_amount: 0, refund_count: 0 });
    expect(await row(mine.id)).toMatchObject({ refunded_amount: 0, refund_count: 0 });
  });

  it('speaks Indonesian', async () => {
    const tx = await paid();
    const detail = `/dashboard/transactions/${tx.id}`;
    const body = (await shop.get(detail, { 'accept-language': 'id-ID' })).body;
    expect(body).toContain(
      'Gateway tidak dapat memindahkan dana ini: catat pengembalian dana yang Anda bayarkan sendiri',
    );
    expect(body).toContain('Catat pengembalian');
  });
});
