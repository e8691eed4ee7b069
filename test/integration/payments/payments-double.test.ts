// Double payments (issue 28, section 2): a second payment for a transaction already paid is kept
// unmatched (reason transaction_already_paid, the transaction beside it), listed as a double payment
// (CLI --double, the console's filter) and refunded once: a refunds row naming the payment, recorded for
// a static-QRIS code, audited, no event. Never silently matched or lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import { assignPayment } from '../../../src/services/payments/assign-payment.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { refundDoublePayment } from '../../../src/services/refunds/refund-double-payment.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { countUnmatchedPayments } from '../../../src/storage/queries/overview.js';
import { readTransaction } from '../../../src/storage/queries/transactions.js';
import { addMerchantUser, addOperator, ConsoleClient, noticeOf, TEST_ACTOR } from '../../helpers/console.js';
import { createInput, createTestApp, seedMerchant, type Seeded, type TestApp } from '../../helpers/context.js';
import { cli, footprint } from '../../helpers/payment-sources.js';

let t: TestApp;
let other: Seeded;
let amount = 41_000;
let seq = 0;

beforeAll(async () => {
  t = await createTestApp();
  other = await seedMerchant(t.deps, 1, 'Other Shop');
});
afterAll(async () => t.close());

/** A transaction paid through the sandbox simulator, then paid again to its reserved total: the second is refused by the matcher. */
async function doublePaid(merchantId = t.merchant.id) {
  const tx = (await createTransaction(t.deps, createInput(merchantId, ++amount))).transaction;
  const first = await simulatePayment(t.deps, { merchantId, mode: 'test' }, tx.id);
  expect(first.outcome).toBe('matched');
  const second = await recordPayment(t.deps, {
    merchantId,
    mode: 'test',
    source: 'static-feed',
    sourcePaymentId: `again-${++seq}`,
    amount: tx.total_amount,
    paidAt: t.clock.now(),
    payerName: 'Budi',
  });
  expect(second).toMatchObject({
    outcome: 'unmatched',
    reason: 'transaction_already_paid',
    payment: { compared_transaction_id: tx.id },
  });
  return { tx, first: first.payment!, double: second.payment };
}

const refundRows = (paymentId: string) =>
  t.deps.db.selectFrom('refunds').selectAll().where('payment_id', '=', paymentId).execute();

describe('double payments', () => {
  it('stay unmatched, are listed by payments list --double, refunded once by payments refund, then listed as refunded', async () => {
    const { tx, first, double } = await doublePaid();
    const stray = await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'test',
      source: 'static-feed',
      sourcePaymentId: `stray-${++seq}`,
      amount: 777,
      paidAt: t.clock.now(),
    });

    const listed = await cli(t, ['payments', 'list', '--double', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const items = listed.json!.items as Record<string, unknown>[];
    expect(items.map((p) => p.id)).toContain(double.id);
    expect(items.map((p) => p.id)).not.toContain(stray.payment.id);
    expect(items.map((p) => p.id)).not.toContain(first.id);
    expect(items.find((p) => p.id === double.id)).toMatchObject({
      status: 'unmatched',
      double: true,
      compared_trxid: tx.id,
      refunded: false,
    });
    expect((await cli(t, ['payments', 'list', '--double', '--status', 'matched', '--json'])).json!.error).toMatchObject(
      {
        code: 'invalid_parameter',
        param: 'double',
      },
    );
    const human = await cli(t, ['payments', 'list', '--double']);
    expect(human.stdout).toContain(`${double.id} `);
    expect(human.stdout).toContain(`double payment of ${tx.id}`);

    // The reason is required.
    expect((await cli(t, ['payments', 'refund', double.id, '--json'])).code).toBe(2);
    const events = await footprint(t);
    const r = await cli(
      t,
      ['payments', 'refund', double.id, '--reason', 'paid twice', '--reference', 'TRF-1', '--json'],
      { QRIS_OPERATOR: 'rina' },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json!.refund).toMatchObject({
      payment_id: double.id,
      trxid: tx.id,
      amount: tx.total_amount,
      status: 'succeeded',
      recorded: true,
      reference: 'TRF-1',
    });
    expect(await refundRows(double.id)).toMatchObject([
      {
        transaction_id: tx.id,
        merchant_id: t.merchant.id,
        mode: 'test',
        amount: tx.total_amount,
        status: 'succeeded',
        recorded: 1,
        reason: 'paid twice',
        reference: 'TRF-1',
        requested_by: 'rina',
      },
    ]);
    // No event (the refund events are the transaction refunds'), no change to the paid transaction.
    expect(await footprint(t)).toEqual(events);
    expect(await readTransaction(t.deps.db, tx.id)).toMatchObject({
      status: 'paid',
      payment_id: first.id,
      amount_paid: tx.total_amount,
      refunded_amount: 0,
    });
    const [audit] = await t.deps.db
      .selectFrom('audit_log')
      .selectAll()
      .where('subject_id', '=', double.id)
      .where('action', '=', 'payment.refund')
      .execute();
    expect(audit).toMatchObject({ actor: 'rina' });
    expect(JSON.parse(audit!.details!)).toMatchObject({
      trxid: tx.id,
      amount: tx.total_amount,
      reason: 'paid twice',
      reference: 'TRF-1',
    });

    // A second refund of it is a clear conflict; it is listed as refunded and cannot be assigned any more.
    const again = await cli(t, ['payments', 'refund', double.id, '--reason', 'again', '--json']);
    expect(again.code).toBe(1);
    expect(again.json!.error).toMatchObject({ code: 'payment_already_refunded', param: 'payment_id' });
    expect(await refundRows(double.id)).toHaveLength(1);
    const after = (await cli(t, ['payments', 'list', '--double', '--json'])).json!.items as Record<string, unknown>[];
    expect(after.find((p) => p.id === double.id)).toMatchObject({ status: 'unmatched', refunded: true });
    expect((await cli(t, ['payments', 'list', '--double'])).stdout).toContain(`double payment of ${tx.id}, refunded`);
    const other = (await createTransaction(t.deps, createInput(t.merchant.id, tx.amount))).transaction;
    const assign = await cli(t, ['payments', 'assign', double.id, other.id, '--accept-difference', '--json']);
    expect(assign.json!.error.code).toBe('payment_already_refunded');
    expect(await readTransaction(t.deps.db, other.id)).toMatchObject({ status: 'pending', amount_paid: 0 });
  });

  it('only a double payment is refunded here: another unmatched one, a matched one and an unknown one are refused', async () => {
    const { first } = await doublePaid();
    const stray = await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'test',
      source: 'static-feed',
      sourcePaymentId: `stray-${++seq}`,
      amount: 555,
      paidAt: t.clock.now(),
    });
    expect((await cli(t, ['payments', 'refund', stray.payment.id, '--reason', 'x', '--json'])).json!.error.code).toBe(
      'payment_not_double',
    );
    expect((await cli(t, ['payments', 'refund', first.id, '--reason', 'x', '--json'])).json!.error.code).toBe(
      'payment_not_double',
    );
    expect((await cli(t, ['payments', 'refund', 'pay_nope', '--reason', 'x', '--json'])).json!.error.code).toBe(
      'payment_not_found',
    );
    expect(
      (await cli(t, ['payments', 'refund', stray.payment.id, '--reason', '   ', '--json'])).json!.error,
    ).toMatchObject({
      code: 'invalid_parameter',
      param: 'reason',
    });
  });

  it('a reason or reference with a link or an address is refused, however spelled (issue 35, finding 2); nothing is recorded', async () => {
    const { double } = await doublePaid();
    for (const reason of ['see https://evil.example/verify', 'evil\uFF0Eexample', 'x@evil.example', '10.0.0.1']) {
      const res = await cli(t, ['payments', 'refund', double.id, '--reason', reason, '--json']);
      expect(res.json!.error, reason).toMatchObject({ code: 'invalid_parameter', param: 'reason' });
    }
    const badReference = await cli(t, [
      'payments',
      'refund',
      double.id,
      '--reason',
      'paid twice',
      '--reference',
      'evil\u200B.example',
      '--json',
    ]);
    expect(badReference.json!.error).toMatchObject({ code: 'invalid_parameter', param: 'reference' });
    expect(await refundRows(double.id)).toHaveLength(0);
    // An ordinary reason with an amount in it is recorded.
    const ok = await cli(t, [
      'payments',
      'refund',
      double.id,
      '--reason',
      'Dobel bayar, kembali Rp41.000',
      '--reference',
      'TRF 1.234',
      '--json',
    ]);
    expect(ok.json!.refund).toMatchObject({ reason: 'Dobel bayar, kembali Rp41.000', reference: 'TRF 1.234' });
  });

  it("the overview's count of unmatched payments to review leaves out a double payment once it is refunded", async () => {
    const { double } = await doublePaid();
    const before = await countUnmatchedPayments(t.deps.db, null, double.mode);
    await refundDoublePayment(t.deps, { paymentId: double.id, reason: 'paid back in cash', actor: TEST_ACTOR });
    expect(await countUnmatchedPayments(t.deps.db, null, double.mode)).toBe(before - 1);
    // Still listed as what it is (unmatched, refunded), only no longer waiting for anyone.
    expect(
      (await t.deps.db.selectFrom('payments').select('status').where('id', '=', double.id).executeTakeFirstOrThrow())
        .status,
    ).toBe('unmatched');
  });

  it('two refunds of one payment at once: one lands, the other is payment_already_refunded', async () => {
    for (let round = 0; round < 3; round++) {
      const { double } = await doublePaid();
      const results = await Promise.allSettled(
        [1, 2].map((n) => refundDoublePayment(t.deps, { paymentId: double.id, reason: `try ${n}`, actor: TEST_ACTOR })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason.code).toBe('payment_already_refunded');
      expect(await refundRows(double.id)).toHaveLength(1);
    }
  });

  it('a refund and an assign of one double payment at once: exactly one happens', async () => {
    for (let round = 0; round < 3; round++) {
      const { tx, double } = await doublePaid();
      const target = (await createTransaction(t.deps, createInput(t.merchant.id, tx.amount + 1))).transaction;
      const [refund, assign] = await Promise.allSettled([
        refundDoublePayment(t.deps, { paymentId: double.id, reason: 'race', actor: TEST_ACTOR }),
        assignPayment(t.deps, { paymentId: double.id, trxid: target.id, actor: TEST_ACTOR, acceptDifference: true }),
      ]);
      const refunded = (await refundRows(double.id)).length === 1;
      const assigned = (await readTransaction(t.deps.db, target.id))!.status === 'paid';
      expect([refunded, assigned].filter(Boolean)).toHaveLength(1);
      expect(refund.status === 'fulfilled').toBe(refunded);
      expect(assign.status === 'fulfilled').toBe(assigned);
    }
  });

  it('console: the Double payments filter lists it with its transaction and a Refund form; the refund is recorded once; another merchant cannot', async () => {
    const { tx, double } = await doublePaid();
    const theirs = await doublePaid(other.merchant.id);
    await addOperator(t.deps);
    const ops = new ConsoleClient(t.app);
    expect((await ops.logIn('ops@example.test')).statusCode).toBe(303);
    const from = '/dashboard/payments?status=double';
    const page = await ops.get(from);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<option value="double" selected>Double payments</option>');
    expect(page.body).toContain(`<h3 id="pay-${double.id}-title">Double payment of`);
    expect(page.body).toContain(`href="/dashboard/transactions/${tx.id}"`);
    expect(page.body).toContain(`action="/dashboard/payments/${double.id}/refund"`);
    expect(page.body).toContain(`<a href="#pay-${double.id}">Refund</a>`);
    // The paid transaction's page lists it too, linking to where it is refunded.
    const txPage = await ops.get(`/dashboard/transactions/${tx.id}`);
    expect(txPage.body).toContain(`<span class="mono">${double.id}</span>`);
    expect(txPage.body).toContain(
      `<a href="/dashboard/payments?status=double#pay-${double.id}">a double payment: refund it on Payments</a>`,
    );
    // Not in the matched list.
    expect((await ops.get('/dashboard/payments?status=matched')).body).not.toContain(double.id);

    const noReason = await ops.post(`/dashboard/payments/${double.id}/refund`, { back: from, reason: '' }, from);
    expect(noticeOf((await ops.get(noReason.headers.location as string)).body)).toBe(
      'Say why the payment was paid back.',
    );
    const linked = await ops.post(
      `/dashboard/payments/${double.id}/refund`,
      { back: from, reason: 'Cek evil\u3002example' },
      from,
    );
    expect(noticeOf((await ops.get(linked.headers.location as string)).body)).toBe(
      'The reason and the reference may not contain a link or an address (a URL, www., a domain such as example.com, an e-mail or IP address); after a full stop, write a space. Nothing was recorded.',
    );
    expect(await refundRows(double.id)).toHaveLength(0);
    const done = await ops.post(
      `/dashboard/payments/${double.id}/refund`,
      { back: from, reason: 'paid twice', reference: '' },
      from,
    );
    expect(done.statusCode).toBe(303);
    const after = await ops.get(done.headers.location as string);
    expect(noticeOf(after.body)).toContain(`Payment ${double.id}`);
    expect(noticeOf(after.body)).toContain('is recorded as refunded');
    expect(after.body).toContain('<span class="badge refunded">refunded</span>');
    expect(after.body).not.toContain(`action="/dashboard/payments/${double.id}/refund"`);
    expect(after.body).not.toContain(`action="/dashboard/payments/${double.id}/assign"`);
    expect(await refundRows(double.id)).toMatchObject([
      { reason: 'paid twice', reference: null, requested_by: 'user:ops@example.test', recorded: 1 },
    ]);
    const twice = await ops.post(`/dashboard/payments/${double.id}/refund`, { back: from, reason: 'again' }, from);
    expect(noticeOf((await ops.get(twice.headers.location as string)).body)).toBe(
      'This payment was refunded already; nothing was changed.',
    );
    // An assign posted by hand (the page offers none) is refused the same way.
    const target = (await createTransaction(t.deps, createInput(t.merchant.id, tx.amount))).transaction;
    const assign = await ops.post(
      `/dashboard/payments/${double.id}/assign`,
      { back: from, trxid: target.id, accept_difference: '0' },
      from,
    );
    expect(noticeOf((await ops.get(assign.headers.location as string)).body)).toBe(
      'This payment was refunded already; nothing was changed.',
    );
    expect(await readTransaction(t.deps.db, target.id)).toMatchObject({ status: 'pending', amount_paid: 0 });

    // A merchant user sees its own double payments only; another merchant's is a 404, and nothing is recorded.
    await addMerchantUser(t.deps, [t.merchant.id]);
    const shop = new ConsoleClient(t.app);
    expect((await shop.logIn('shop@example.test')).statusCode).toBe(303);
    expect((await shop.get(from)).body).not.toContain(theirs.double.id);
    const foreign = await shop.post(
      `/dashboard/payments/${theirs.double.id}/refund`,
      { back: from, reason: 'mine?' },
      from,
    );
    expect(foreign.statusCode).toBe(404);
    expect(await refundRows(theirs.double.id)).toHaveLength(0);
  });
});
