// Part payments (issue 28, section 2): an underpaying payment can be assigned with the transaction kept
// open for the rest (CLI --partial, the console's "Keep it open"); a later assign of another payment
// adds to amount_paid, and the transaction is paid once the sum reaches its total (exact, or with an
// accepted difference). transaction.paid fires once; the matcher never completes a part-paid
// transaction by itself; two assigns at once lose neither amount; expiry keeps what was received.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatRupiah } from '../../../src/domain/money.js';
import { assignCandidates } from '../../../src/services/payments/assign-candidates.js';
import { assignPayment } from '../../../src/services/payments/assign-payment.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { expireDue } from '../../../src/services/transactions/expire-due.js';
import { paymentsOfTransaction } from '../../../src/storage/queries/payments.js';
import { readTransaction } from '../../../src/storage/queries/transactions.js';
import { TEST_ACTOR } from '../../helpers/console.js';
import { createInput, createTestApp, type TestApp } from '../../helpers/context.js';
import { cli, listen, status } from '../../helpers/payment-sources.js';

let t: TestApp;
let base: string;
let amount = 31_000;
let seq = 0;

beforeAll(async () => {
  t = await createTestApp();
  base = await listen(t);
});
afterAll(async () => t.close());

const newTransaction = async () => (await createTransaction(t.deps, createInput(t.merchant.id, ++amount))).transaction;

/** An unmatched test payment of `paid` rupiah that names no transaction (a feed's report). */
async function stray(paid: number) {
  const r = await recordPayment(t.deps, {
    merchantId: t.merchant.id,
    mode: 'test',
    source: 'part-feed',
    sourcePaymentId: `part-${++seq}`,
    amount: paid,
    paidAt: t.clock.now(),
  });
  expect(r.outcome).toBe('unmatched');
  return r.payment;
}

const paidEvents = (trxid: string) =>
  t.deps.db
    .selectFrom('events')
    .selectAll()
    .where('transaction_id', '=', trxid)
    .where('type', '=', 'transaction.paid')
    .execute();

describe('a transaction kept open for the rest', () => {
  it('--partial binds a short payment and keeps the transaction pending with amount_paid and the rest as underpaid; no paid event', async () => {
    const tx = await newTransaction();
    const part = await stray(10_000);
    const r = await cli(t, ['payments', 'assign', part.id, tx.id, '--partial', '--json'], { QRIS_OPERATOR: 'sari' });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const rest = tx.total_amount - 10_000;
    const expected = {
      trxid: tx.id,
      status: 'pending',
      amount_paid: 10_000,
      underpaid: rest,
      overpaid: 0,
      paid_at: null,
      payment: null,
    };
    expect(r.json!.transaction).toMatchObject(expected);
    expect(r.json!.payment).toMatchObject({ id: part.id, status: 'matched', trxid: tx.id });
    expect(await status(base, t.testKey, tx.id)).toMatchObject(expected);
    expect(await paidEvents(tx.id)).toHaveLength(0);
    const [audit] = await t.deps.db.selectFrom('audit_log').selectAll().where('subject_id', '=', part.id).execute();
    expect(audit).toMatchObject({ actor: 'sari', action: 'payment.assign' });
    expect(JSON.parse(audit!.details!)).toMatchObject({
      trxid: tx.id,
      kept_open: true,
      amount_paid_before: 0,
      amount_paid: 10_000,
      underpaid: rest,
    });

    const human = await cli(t, ['payments', 'assign', (await stray(1_000)).id, tx.id, '--partial']);
    expect(human.stdout).toContain(
      `kept pending with ${formatRupiah(11_000)} received, ${formatRupiah(rest - 1_000)} still due`,
    );
  });

  it('a second payment of exactly the rest pays it: amount_paid = total, no difference, one transaction.paid; both payments link to it', async () => {
    const tx = await newTransaction();
    const first = await stray(20_000);
    expect((await cli(t, ['payments', 'assign', first.id, tx.id, '--partial', '--json'])).code).toBe(0);
    const second = await stray(tx.total_amount - 20_000);
    // No flag needed: the sum fits.
    const r = await cli(t, ['payments', 'assign', second.id, tx.id, '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const expected = { status: 'paid', amount_paid: tx.total_amount, underpaid: 0, overpaid: 0, paid_late: false };
    expect(r.json!.transaction).toMatchObject({ ...expected, payment: { id: second.id } });
    expect(await status(base, t.testKey, tx.id)).toMatchObject(expected);
    const events = await paidEvents(tx.id);
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.payload).data).toMatchObject(expected);
    expect((await paymentsOfTransaction(t.deps.db, tx.id)).map((p) => [p.id, p.status])).toEqual([
      [first.id, 'matched'],
      [second.id, 'matched'],
    ]);
    // A third payment finds it paid.
    const third = await cli(t, ['payments', 'assign', (await stray(5)).id, tx.id, '--partial', '--json']);
    expect(third.json!.error.code).toBe('transaction_already_paid');
  });

  it('a second payment short of the rest is refused without a decision, then kept open again or accepted as paid underpaid', async () => {
    const tx = await newTransaction();
    const first = await stray(15_000);
    await cli(t, ['payments', 'assign', first.id, tx.id, '--partial', '--json']);
    const second = await stray(5_000);
    const due = tx.total_amount - 15_000;
    const refused = await cli(t, ['payments', 'assign', second.id, tx.id, '--json']);
    expect(refused.json!.error).toMatchObject({ code: 'amount_differs', param: 'trxid' });
    expect(refused.json!.error.message).toContain(
      `payment ${formatRupiah(5_000)} is ${formatRupiah(due - 5_000)} less than the ${formatRupiah(due)} still due of the total ${formatRupiah(tx.total_amount)}`,
    );
    expect(await readTransaction(t.deps.db, tx.id)).toMatchObject({ status: 'pending', amount_paid: 15_000 });

    expect(
      (await cli(t, ['payments', 'assign', second.id, tx.id, '--partial', '--json'])).json!.transaction,
    ).toMatchObject({
      status: 'pending',
      amount_paid: 20_000,
      underpaid: tx.total_amount - 20_000,
    });
    const third = await stray(1_000);
    const accepted = await cli(t, ['payments', 'assign', third.id, tx.id, '--accept-difference', '--json']);
    expect(accepted.json!.transaction).toMatchObject({
      status: 'paid',
      amount_paid: 21_000,
      underpaid: tx.total_amount - 21_000,
      overpaid: 0,
    });
    expect(await paidEvents(tx.id)).toHaveLength(1);
  });

  it('a second payment over the rest needs the acceptance of the excess, and is then paid overpaid by it', async () => {
    const tx = await newTransaction();
    await cli(t, ['payments', 'assign', (await stray(30_000)).id, tx.id, '--partial', '--json']);
    const due = tx.total_amount - 30_000;
    const second = await stray(due + 700);
    // --partial keeps open only what is short: an excess is refused like any other difference.
    const refused = await cli(t, ['payments', 'assign', second.id, tx.id, '--partial', '--json']);
    expect(refused.json!.error.code).toBe('amount_differs');
    expect(refused.json!.error.message).toContain(`is Rp700 more than the ${formatRupiah(due)} still due`);
    const r = await cli(t, ['payments', 'assign', second.id, tx.id, '--accept-difference', '--json']);
    expect(r.json!.transaction).toMatchObject({
      status: 'paid',
      amount_paid: tx.total_amount + 700,
      underpaid: 0,
      overpaid: 700,
    });
  });

  it('the matcher never completes a part-paid transaction by itself, by amount or by name', async () => {
    const tx = await newTransaction();
    await cli(t, ['payments', 'assign', (await stray(9_000)).id, tx.id, '--partial', '--json']);
    // The payer now pays the whole total to the reserved amount, and another report names the transaction.
    const byAmount = await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'test',
      source: 'part-feed',
      sourcePaymentId: `whole-${tx.id}`,
      amount: tx.total_amount,
      paidAt: t.clock.now(),
    });
    expect(byAmount).toMatchObject({
      outcome: 'unmatched',
      reason: 'amount_mismatch',
      payment: { compared_transaction_id: tx.id },
    });
    const byName = await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'test',
      source: 'part-feed',
      sourcePaymentId: `rest-${tx.id}`,
      amount: tx.total_amount - 9_000,
      paidAt: t.clock.now(),
      trxid: tx.id,
    });
    expect(byName).toMatchObject({ outcome: 'unmatched', reason: 'amount_mismatch' });
    expect(await readTransaction(t.deps.db, tx.id)).toMatchObject({ status: 'pending', amount_paid: 9_000 });
    // A person completes it with the named payment.
    const done = await assignPayment(t.deps, { paymentId: byName.payment.id, trxid: tx.id, actor: TEST_ACTOR });
    expect(done.transaction).toMatchObject({ status: 'paid', amount_paid: tx.total_amount, underpaid: 0 });
  });

  it('two people assigning two part payments to one transaction at once lose neither amount', async () => {
    for (let round = 0; round < 4; round++) {
      const tx = await newTransaction();
      const parts = await Promise.all([stray(1_000 + round), stray(2_000 + round), stray(3_000 + round)]);
      const results = await Promise.allSettled(
        parts.map((p) => assignPayment(t.deps, { paymentId: p.id, trxid: tx.id, actor: TEST_ACTOR, keepOpen: true })),
      );
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      const sum = parts.reduce((s, p) => s + p.amount, 0);
      expect(await readTransaction(t.deps.db, tx.id)).toMatchObject({
        status: 'pending',
        amount_paid: sum,
        underpaid: tx.total_amount - sum,
      });
      expect((await paymentsOfTransaction(t.deps.db, tx.id)).map((p) => p.id).sort()).toEqual(
        parts.map((p) => p.id).sort(),
      );
    }
  });

  it('two payments that complete it together, assigned at once: it is paid once with the whole sum', async () => {
    for (let round = 0; round < 4; round++) {
      const tx = await newTransaction();
      const a = await stray(12_000);
      const b = await stray(tx.total_amount - 12_000);
      const results = await Promise.all(
        [a, b].map((p) => assignPayment(t.deps, { paymentId: p.id, trxid: tx.id, actor: TEST_ACTOR, keepOpen: true })),
      );
      // Whichever came second found the sum complete and paid it (keep-open applies only when short).
      expect(results.map((r) => r.keptOpen).sort()).toEqual([false, true]);
      expect(await readTransaction(t.deps.db, tx.id)).toMatchObject({
        status: 'paid',
        amount_paid: tx.total_amount,
        underpaid: 0,
        overpaid: 0,
      });
      expect(await paidEvents(tx.id)).toHaveLength(1);
    }
  });

  it('the matcher and a keep-open assign at once: whichever wins, every bound payment is counted in amount_paid', async () => {
    for (let round = 0; round < 4; round++) {
      const tx = await newTransaction();
      const part = await stray(5_000);
      const [assigned, reported] = await Promise.allSettled([
        assignPayment(t.deps, { paymentId: part.id, trxid: tx.id, actor: TEST_ACTOR, keepOpen: true }),
        recordPayment(t.deps, {
          merchantId: t.merchant.id,
          mode: 'test',
          source: 'part-feed',
          sourcePaymentId: `race-${tx.id}`,
          amount: tx.total_amount,
          paidAt: t.clock.now(),
        }),
      ]);
      const row = (await readTransaction(t.deps.db, tx.id))!;
      const bound = await paymentsOfTransaction(t.deps.db, tx.id);
      expect(row.amount_paid).toBe(bound.reduce((sum, p) => sum + p.amount, 0));
      expect(reported.status).toBe('fulfilled');
      const outcome = (reported as PromiseFulfilledResult<Awaited<ReturnType<typeof recordPayment>>>).value;
      if (outcome.outcome === 'matched') {
        // The matcher came first: the transaction is paid exactly, and the part was refused, still unmatched.
        expect(row).toMatchObject({ status: 'paid', amount_paid: tx.total_amount });
        expect(assigned.status).toBe('rejected');
        expect((assigned as PromiseRejectedResult).reason.code).toBe('transaction_already_paid');
      } else {
        // The part came first: the whole total no longer fits, and waits for a person.
        expect(outcome).toMatchObject({ outcome: 'unmatched', reason: 'amount_mismatch' });
        expect(row).toMatchObject({ status: 'pending', amount_paid: 5_000 });
      }
    }
  });

  it('expiry: a part-paid transaction still expires, keeps amount_paid and its payment, and a later assign completes it late', async () => {
    const tx = await newTransaction();
    const first = await stray(8_000);
    await cli(t, ['payments', 'assign', first.id, tx.id, '--partial', '--json']);
    t.clock.advance(tx.expires_at - t.clock.now() + 1_000);
    expect(await expireDue(t.deps)).toBeGreaterThanOrEqual(1);
    expect(await readTransaction(t.deps.db, tx.id)).toMatchObject({
      status: 'expired',
      amount_paid: 8_000,
      underpaid: tx.total_amount - 8_000,
    });
    const expired = await t.deps.db
      .selectFrom('events')
      .selectAll()
      .where('transaction_id', '=', tx.id)
      .where('type', '=', 'transaction.expired')
      .execute();
    expect(JSON.parse(expired[0]!.payload).data).toMatchObject({ status: 'expired', amount_paid: 8_000 });
    expect((await paymentsOfTransaction(t.deps.db, tx.id)).map((p) => p.id)).toEqual([first.id]);

    const rest = await stray(tx.total_amount - 8_000);
    // The payment of exactly its rest lists it as the transaction it could belong to, though it has ended.
    expect((await assignCandidates(t.deps, rest)).map((c) => c.id)).toEqual([tx.id]);
    expect((await assignCandidates(t.deps, await stray(tx.total_amount - 8_001))).map((c) => c.id)).not.toContain(
      tx.id,
    );
    const r = await cli(t, ['payments', 'assign', rest.id, tx.id, '--json']);
    expect(r.json!.transaction).toMatchObject({
      status: 'paid',
      paid_late: true,
      amount_paid: tx.total_amount,
      underpaid: 0,
    });
    expect(await paidEvents(tx.id)).toHaveLength(1);
  });
});
