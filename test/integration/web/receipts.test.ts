// Receipts (issue 27, section 5), on both databases: the link is made from the console's transaction
// page for a paid transaction only, by those who may see it, once; its public page shows what a receipt
// must, and every other token is a 404 page. Once refunded, in part or in full, it says so in both
// languages and at both widths, and no longer says PAID (issue 35); a refund in progress is not counted.
import { afterEach, describe, expect, it } from 'vitest';
import { formatRupiah } from '../../../src/domain/money.js';
import { codeIssuers } from '../../../src/payment-sources/issuers.js';
import type { CodeIssuer, IssuerRefundOutcome } from '../../../src/services/deps.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { refundTransaction } from '../../../src/services/refunds/refund-transaction.js';
import { addMerchantUser, addOperator, ConsoleClient, noticeOf } from '../../helpers/console.js';
import { createInput, createTestApp, seedMerchant, type Seeded, type TestApp } from '../../helpers/context.js';

describe('receipts', () => {
  let t: TestApp;
  let other: Seeded;
  afterEach(async () => t?.close());

  async function setup() {
    t = await createTestApp({ PUBLIC_BASE_URL: 'https://pay.example.test' });
    other = await seedMerchant(t.deps, 1, 'Toko Lain');
    await addOperator(t.deps);
    await addMerchantUser(t.deps, [t.merchant.id], 'shop@example.test');
    await addMerchantUser(t.deps, [other.merchant.id], 'lain@example.test');
    await t.deps.db.updateTable('merchants').set({ nmid: 'ID1020304050607' }).where('id', '=', t.merchant.id).execute();
  }

  async function as(email: string) {
    const c = new ConsoleClient(t.app);
    expect((await c.logIn(email)).statusCode).toBe(303);
    return c;
  }

  async function paidTransaction(amount: number, ref: string | null = null) {
    const { transaction } = await createTransaction(t.deps, createInput(t.merchant.id, amount, { ref }));
    await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'test',
      source: 'manual',
      sourcePaymentId: `bank-${transaction.id}`,
      amount: transaction.total_amount,
      paidAt: t.clock.now(),
      reference: 'BCA-778899',
      issuer: 'GoPay',
    });
    return transaction;
  }

  const linkIn = (page: string) => /href="https:\/\/pay\.example\.test(\/receipt\/[0-9A-Za-z]{32})"/.exec(page)?.[1];

  it('makes one link per paid transaction from its console page; the page shows what a receipt must', async () => {
    await setup();
    const tx = await paidTransaction(25_000, 'meja-7');
    const shop = await as('shop@example.test');
    const page = `/dashboard/transactions/${tx.id}`;
    const before = await shop.get(page);
    expect(before.body).toContain('Make the receipt link');
    expect(linkIn(before.body)).toBeUndefined();

    const made = await shop.post(`${page}/receipt`, {}, page);
    expect(made.statusCode).toBe(303);
    const after = await shop.get(page);
    expect(noticeOf(after.body)).toBe('The receipt link is ready.');
    const path = linkIn(after.body)!;
    expect(path).toBeDefined();
    expect(after.body).toContain(`${path}?width=58&amp;lang=en`);
    // Asking again keeps the same link.
    await shop.post(`${page}/receipt`, {}, page);
    expect(linkIn((await shop.get(page)).body)).toBe(path);

    // The public page: no login, in the payer's language.
    const receipt = await t.app.inject({ method: 'GET', url: path, headers: { 'accept-language': 'id-ID,id;q=0.9' } });
    expect(receipt.statusCode).toBe(200);
    expect(receipt.headers['content-security-policy']).toContain("script-src 'self'");
    expect(receipt.headers['cache-control']).toBe('private, no-store');
    const body = receipt.body;
    for (const shown of [
      t.merchant.merchant_name,
      'NMID ID1020304050607',
      'LUNAS',
      'Rp25.000',
      `Rp${String(tx.total_amount).replace(/\B(?=(\d{3})+$)/g, '.')}`,
      'WIB',
      'meja-7',
      'BCA-778899',
      'GoPay',
      tx.id,
      'SANDBOX',
    ]) {
      expect(body, shown).toContain(shown);
    }
    expect(body).toContain('<body class="paper-58">');
    expect((await t.app.inject({ method: 'GET', url: `${path}?width=80&lang=en` })).body).toContain(
      '<body class="paper-80">',
    );
    expect((await t.app.inject({ method: 'GET', url: `${path}?lang=en` })).body).toContain('Total paid');

    // The audit log names who made it.
    const audit = await t.deps.db
      .selectFrom('audit_log')
      .select(['actor', 'action'])
      .where('subject_id', '=', tx.id)
      .where('action', '=', 'receipt.link')
      .execute();
    expect(audit).toEqual([{ actor: 'user:shop@example.test', action: 'receipt.link' }]);
  });

  it('has no link for an unpaid transaction, nor for another merchant', async () => {
    await setup();
    const pending = (await createTransaction(t.deps, createInput(t.merchant.id, 12_000))).transaction;
    const tx = await paidTransaction(13_000);
    const shop = await as('shop@example.test');
    const pendingPage = await shop.get(`/dashboard/transactions/${pending.id}`);
    expect(pendingPage.body).not.toContain('Make the receipt link');
    const refused = await shop.post(
      `/dashboard/transactions/${pending.id}/receipt`,
      {},
      `/dashboard/transactions/${pending.id}`,
    );
    expect(refused.statusCode).toBe(404);

    const lain = await as('lain@example.test');
    const theirs = await lain.post(`/dashboard/transactions/${tx.id}/receipt`, {}, '/dashboard/transactions');
    expect(theirs.statusCode).toBe(404);
    expect(await t.deps.db.selectFrom('receipt_links').selectAll().execute()).toEqual([]);
  });

  it('answers an unknown, malformed or unpaid token with a 404 page', async () => {
    await setup();
    const tx = await paidTransaction(14_000);
    await (await as('ops@example.test')).post(
      `/dashboard/transactions/${tx.id}/receipt`,
      {},
      `/dashboard/transactions/${tx.id}`,
    );
    const { token } = await t.deps.db.selectFrom('receipt_links').select('token').executeTakeFirstOrThrow();
    expect((await t.app.inject({ url: `/receipt/${token}` })).statusCode).toBe(200);

    // A token whose transaction is not paid (a row this gateway would not make, written by hand) is not a receipt.
    const pending = (await createTransaction(t.deps, createInput(t.merchant.id, 15_000))).transaction;
    const unpaidToken = 'U'.repeat(32);
    await t.deps.db
      .insertInto('receipt_links')
      .values({ transaction_id: pending.id, token: unpaidToken, created_at: t.clock.now() })
      .execute();

    for (const url of [
      `/receipt/${'x'.repeat(32)}`,
      `/receipt/${token.slice(1)}`,
      '/receipt/',
      `/receipt/${token}x`,
      `/receipt/${tx.id}`,
      `/receipt/${unpaidToken}`,
    ]) {
      const res = await t.app.inject({ url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.body, url).toContain('Receipt not found');
      expect(res.body, url).not.toContain(t.merchant.merchant_name);
    }
  });

  /** The receipt's link, made as the shop's user makes it. */
  async function receiptPath(trxid: string) {
    const shop = await as('shop@example.test');
    const page = `/dashboard/transactions/${trxid}`;
    expect((await shop.post(`${page}/receipt`, {}, page)).statusCode).toBe(303);
    return linkIn((await shop.get(page)).body)!;
  }

  /** What the slip says: its stamp, and each line's label and value, in order. */
  async function slip(path: string, lang: 'id' | 'en', width: 58 | 80 = 58) {
    const res = await t.app.inject({ url: `${path}?width=${width}&lang=${lang}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`<body class="paper-${width}">`);
    const stamp = /<p class="stamp[^"]*">([^<]*)<\/p>/.exec(res.body)?.[1];
    const lines = [
      ...res.body.matchAll(/<div class="line[^"]*"><span>([^<]*)<\/span><span>([^<]*)<\/span><\/div>/g),
    ].map((m) => `${m[1]}: ${m[2]}`);
    return { stamp, lines, body: res.body };
  }

  const refund = (trxid: string, amount: number) =>
    refundTransaction(t.deps, {
      trxid,
      owner: null,
      amount,
      reason: 'returned',
      reference: null,
      idempotency: null,
      actor: { kind: 'cli', operator: 'ops' },
    });

  it('a partly and then fully refunded transaction: its receipt says so, with what remains paid, in both languages and widths', async () => {
    await setup();
    const tx = await paidTransaction(40_000);
    const total = tx.total_amount;
    const path = await receiptPath(tx.id);
    expect((await slip(path, 'id')).stamp).toBe('LUNAS');

    await refund(tx.id, 10_000);
    for (const width of [58, 80] as const) {
      const id = await slip(path, 'id', width);
      expect(id.stamp).toBe('SEBAGIAN DIKEMBALIKAN');
      expect(id.lines).toEqual(
        expect.arrayContaining([
          `Dibayar: ${formatRupiah(total)}`,
          'Dikembalikan: -Rp10.000',
          `Sisa dibayar: ${formatRupiah(total - 10_000)}`,
        ]),
      );
      expect(id.body).not.toContain('LUNAS');
      const en = await slip(path, 'en', width);
      expect(en.stamp).toBe('PARTLY REFUNDED');
      expect(en.lines).toEqual(
        expect.arrayContaining([
          `Paid: ${formatRupiah(total)}`,
          'Refunded: -Rp10.000',
          `Remains paid: ${formatRupiah(total - 10_000)}`,
        ]),
      );
      expect(en.body).not.toContain('PAID<');
    }

    await refund(tx.id, total - 10_000);
    for (const width of [58, 80] as const) {
      const id = await slip(path, 'id', width);
      expect(id.stamp).toBe('DIKEMBALIKAN');
      expect(id.lines).toEqual(
        expect.arrayContaining([
          `Dibayar: ${formatRupiah(total)}`,
          `Dikembalikan: -${formatRupiah(total)}`,
          'Sisa dibayar: Rp0',
        ]),
      );
      expect(id.body).not.toContain('LUNAS');
      const en = await slip(path, 'en', width);
      expect(en.stamp).toBe('REFUNDED');
      expect(en.lines).toEqual(
        expect.arrayContaining([
          `Paid: ${formatRupiah(total)}`,
          `Refunded: -${formatRupiah(total)}`,
          'Remains paid: Rp0',
        ]),
      );
      expect(en.body).not.toContain('PAID<');
    }
  });

  it('a refund still in progress at the acquirer is shown as such and not counted as refunded', async () => {
    await setup();
    const answers: IssuerRefundOutcome[] = [];
    const acquirer: CodeIssuer = {
      refunds: 'acquirer',
      issue: async () => {
        throw new Error('not used');
      },
      cancel: async () => 'cancelled',
      refund: async () => answers.shift()!,
    };
    t.deps.issuers = { forMerchant: codeIssuers.forMerchant, forTransaction: async () => acquirer };
    const tx = await paidTransaction(30_000);
    const total = tx.total_amount;
    const path = await receiptPath(tx.id);

    answers.push({ status: 'in_progress', reference: 'ACQ-1' });
    await refund(tx.id, 7_000);
    const held = await slip(path, 'en');
    // Nothing has come back yet: still paid in full, with the refund in progress said plainly.
    expect(held.stamp).toBe('PAID');
    expect(held.lines).toEqual(
      expect.arrayContaining([`Remains paid: ${formatRupiah(total)}`, 'Refund in progress: Rp7.000']),
    );
    expect(held.lines.some((l) => l.startsWith('Refunded:'))).toBe(false);
    expect(held.body).toContain('A refund in progress counts as refunded once it has gone through.');

    answers.push({ status: 'succeeded', reference: 'ACQ-2', completedAt: t.clock.now() });
    await refund(tx.id, 5_000);
    const id = await slip(path, 'id');
    expect(id.stamp).toBe('SEBAGIAN DIKEMBALIKAN');
    expect(id.lines).toEqual(
      expect.arrayContaining([
        `Dikembalikan: -Rp5.000`,
        `Sisa dibayar: ${formatRupiah(total - 5_000)}`,
        'Sedang dikembalikan: Rp7.000',
      ]),
    );
    expect(id.body).toContain('Pengembalian yang sedang diproses dihitung setelah selesai.');
  });
});
