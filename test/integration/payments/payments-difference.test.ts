// Payments that do not fit (issue 28, section 2): an unmatched payment of another amount than a
// transaction's total is assigned to it only when a person accepts the difference (CLI
// --accept-difference here; the console's confirmation in console-payments.test.ts), and the
// transaction then records amount_paid and underpaid or overpaid, in the API, the event and the CSV.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatRupiah } from '../../../src/domain/money.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { cli, createLive, footprint, listen, status } from '../../helpers/payment-sources.js';

let t: TestApp;
let base: string;
// Prices 1,000 apart: a code of a Rp25.000 price is at most Rp250, so a stray payment of one
// transaction's price or total can never equal another pending transaction's total and be matched to it.
let amount = 25_000;
const nextPrice = () => (amount += 1_000);

beforeAll(async () => {
  t = await createTestApp();
  base = await listen(t);
});
afterAll(async () => t.close());

/** An unmatched live payment of `paid` rupiah, reported now by a feed, that names no transaction. */
async function strayPayment(paid: number, id: string) {
  const r = await recordPayment(t.deps, {
    merchantId: t.merchant.id,
    mode: 'live',
    source: 'fit-feed',
    sourcePaymentId: id,
    amount: paid,
    paidAt: t.clock.now(),
  });
  expect(r.outcome).toBe('unmatched');
  return r.payment;
}

const paidEvents = async (trxid: string) =>
  (
    await t.deps.db
      .selectFrom('events')
      .selectAll()
      .where('transaction_id', '=', trxid)
      .where('type', '=', 'transaction.paid')
      .execute()
  ).map((e) => JSON.parse(e.payload).data);
const assignAudits = (paymentId: string) =>
  t.deps.db
    .selectFrom('audit_log')
    .selectAll()
    .where('subject_id', '=', paymentId)
    .where('action', '=', 'payment.assign')
    .execute();

describe('payments assign with a difference', () => {
  it('a pending transaction has amount_paid, underpaid and overpaid 0', async () => {
    const tx = await createLive(base, t.liveKey, nextPrice());
    expect(tx).toMatchObject({ status: 'pending', amount_paid: 0, underpaid: 0, overpaid: 0 });
  });

  it('an exact assign pays the transaction with amount_paid = total and no difference', async () => {
    const tx = await createLive(base, t.liveKey, nextPrice());
    // A payment of exactly the total, reported before the transaction existed, is unmatched too.
    const exact = await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'live',
      source: 'fit-feed',
      sourcePaymentId: `exact-${amount}`,
      amount: tx.total_amount,
      paidAt: t.clock.now() - 3_600_000,
    });
    expect(exact.outcome).toBe('unmatched');
    const r = await cli(t, ['payments', 'assign', exact.payment.id, tx.trxid, '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json!.transaction).toMatchObject({
      status: 'paid',
      amount_paid: tx.total_amount,
      underpaid: 0,
      overpaid: 0,
    });
    expect(await status(base, t.liveKey, tx.trxid)).toMatchObject({
      amount_paid: tx.total_amount,
      underpaid: 0,
      overpaid: 0,
    });
  });

  it('a payment matched by the matcher (here a manual confirmation) records amount_paid = total', async () => {
    const tx = await createLive(base, t.liveKey, nextPrice());
    const r = await cli(t, ['payments', 'confirm', tx.trxid, '--reference', `FIT-${amount}`, '--json']);
    expect(r.json!.transaction).toMatchObject({
      status: 'paid',
      amount_paid: tx.total_amount,
      underpaid: 0,
      overpaid: 0,
    });
    expect(await paidEvents(tx.trxid)).toMatchObject([{ amount_paid: tx.total_amount, underpaid: 0, overpaid: 0 }]);
  });

  it('without --accept-difference a payment of another amount is refused with amount_differs naming the difference; nothing changes', async () => {
    const tx = await createLive(base, t.liveKey, nextPrice());
    const short = await strayPayment(tx.amount, `short-refused-${amount}`);
    const over = await strayPayment(tx.total_amount + 500, `over-refused-${amount}`);
    const before = await footprint(t);
    const refusedShort = await cli(t, ['payments', 'assign', short.id, tx.trxid, '--json']);
    expect(refusedShort.code).toBe(1);
    expect(refusedShort.json!.error).toMatchObject({
      code: 'amount_differs',
      param: 'trxid',
      message: expect.stringContaining(
        `payment ${formatRupiah(tx.amount)} is ${formatRupiah(tx.unique_code)} less than the total ${formatRupiah(tx.total_amount)}`,
      ),
    });
    const refusedOver = await cli(t, ['payments', 'assign', over.id, tx.trxid, '--json']);
    expect(refusedOver.json!.error.message).toContain(`is Rp500 more than the total ${formatRupiah(tx.total_amount)}`);
    expect(await footprint(t)).toEqual(before);
    expect(await status(base, t.liveKey, tx.trxid)).toMatchObject({ status: 'pending', amount_paid: 0 });
    expect(await assignAudits(short.id)).toHaveLength(0);
  });

  it('with --accept-difference an underpaying payment pays the transaction, underpaid by the difference, in the answer, the API and the event; audited', async () => {
    const tx = await createLive(base, t.liveKey, nextPrice());
    const short = await strayPayment(tx.amount, `short-${amount}`);
    const r = await cli(t, ['payments', 'assign', short.id, tx.trxid, '--accept-difference', '--json'], {
      QRIS_OPERATOR: 'rina',
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const expected = {
      trxid: tx.trxid,
      status: 'paid',
      amount_paid: tx.amount,
      underpaid: tx.unique_code,
      overpaid: 0,
    };
    expect(r.json!.transaction).toMatchObject({ ...expected, payment: { id: short.id, amount: tx.amount } });
    expect(await status(base, t.liveKey, tx.trxid)).toMatchObject(expected);
    expect(await paidEvents(tx.trxid)).toMatchObject([expected]);
    const [audit] = await assignAudits(short.id);
    expect(audit).toMatchObject({ actor: 'rina' });
    expect(JSON.parse(audit!.details!)).toMatchObject({
      trxid: tx.trxid,
      amount: tx.amount,
      total_amount: tx.total_amount,
      underpaid: tx.unique_code,
      overpaid: 0,
    });
  });

  it('with --accept-difference an overpaying payment pays the transaction, overpaid by the difference; the human line says so', async () => {
    const tx = await createLive(base, t.liveKey, nextPrice());
    const over = await strayPayment(tx.total_amount + 1_500, `over-${amount}`);
    const r = await cli(t, ['payments', 'assign', over.id, tx.trxid, '--accept-difference']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `${over.id} now pays ${tx.trxid} (${formatRupiah(tx.total_amount + 1_500)}), overpaid by Rp1.500\n`,
    );
    const expected = { status: 'paid', amount_paid: tx.total_amount + 1_500, underpaid: 0, overpaid: 1_500 };
    expect(await status(base, t.liveKey, tx.trxid)).toMatchObject(expected);
    expect(await paidEvents(tx.trxid)).toMatchObject([expected]);
  });

  it('--accept-difference does not override the other refusals', async () => {
    const tx = await createLive(base, t.liveKey, nextPrice());
    const first = await strayPayment(tx.amount, `first-${amount}`);
    // Over the total, so never the total itself (a code of 7 made tx.amount + 7 match).
    const second = await strayPayment(tx.total_amount + 7, `second-${amount}`);
    expect((await cli(t, ['payments', 'assign', first.id, tx.trxid, '--accept-difference', '--json'])).code).toBe(0);
    const again = await cli(t, ['payments', 'assign', second.id, tx.trxid, '--accept-difference', '--json']);
    expect(again.json!.error.code).toBe('transaction_already_paid');
    expect(await status(base, t.liveKey, tx.trxid)).toMatchObject({
      amount_paid: tx.amount,
      payment: { id: first.id },
    });
  });
});
