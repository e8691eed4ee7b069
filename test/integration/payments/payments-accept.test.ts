// A transaction kept open after a part payment (issue 37, section 2): closed by accepting what it
// received (service, `transactions accept`, the console's "Accept what was received"), paid with
// amount_paid as it is and the rest as underpaid, one transaction.paid event and an audit row in the same
// unit of work; other states refused with their codes. Confirming by hand on it records only the rest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatRupiah } from '../../../src/domain/money.js';
import { acceptReceived } from '../../../src/services/payments/accept-received.js';
import { assignPayment } from '../../../src/services/payments/assign-payment.js';
import { confirmPayment } from '../../../src/services/payments/confirm-payment.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { cancelTransaction } from '../../../src/services/transactions/cancel-transaction.js';
import { expireDue } from '../../../src/services/transactions/expire-due.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { addUser } from '../../../src/services/users/add-user.js';
import { readTransaction } from '../../../src/storage/queries/transactions.js';
import { addMerchantUser, addOperator, ConsoleClient, noticeOf, PASSWORD, TEST_ACTOR } from '../../helpers/console.js';
import { createInput, createTestApp, seedMerchant, type TestApp } from '../../helpers/context.js';
import { cli, listen, status } from '../../helpers/payment-sources.js';

let t: TestApp;
let base: string;
let amount = 41_000;
let seq = 0;

beforeAll(async () => {
  t = await createTestApp();
  base = await listen(t);
});
afterAll(async () => t.close());

const newTransaction = async (merchantId = t.merchant.id) =>
  (await createTransaction(t.deps, createInput(merchantId, ++amount))).transaction;

/** A transaction kept open after a part payment of `part`. */
async function keptOpen(part: number, merchantId = t.merchant.id) {
  const tx = await newTransaction(merchantId);
  const r = await recordPayment(t.deps, {
    merchantId,
    mode: 'test',
    source: 'accept-feed',
    sourcePaymentId: `acc-${++seq}`,
    amount: part,
    paidAt: t.clock.now(),
  });
  expect(r.outcome).toBe('unmatched');
  await assignPayment(t.deps, { paymentId: r.payment.id, trxid: tx.id, actor: TEST_ACTOR, keepOpen: true });
  return { tx, part: r.payment };
}

const eventsOf = (trxid: string, type: 'transaction.paid') =>
  t.deps.db.selectFrom('events').selectAll().where('transaction_id', '=', trxid).where('type', '=', type).execute();
const auditOf = (trxid: string) =>
  t.deps.db.selectFrom('audit_log').selectAll().where('subject_id', '=', trxid).execute();

describe('accepting what a kept-open transaction received', () => {
  it('marks it paid with amount_paid as received and the rest underpaid: one transaction.paid, one audit row', async () => {
    const { tx, part } = await keptOpen(15_000);
    const { transaction, payment } = await acceptReceived(t.deps, { trxid: tx.id, actor: TEST_ACTOR });
    const rest = tx.total_amount - 15_000;
    expect(transaction).toMatchObject({
      status: 'paid',
      amount_paid: 15_000,
      underpaid: rest,
      overpaid: 0,
      payment_id: part.id,
      paid_late: 0,
    });
    expect(payment.id).toBe(part.id);
    expect(await status(base, t.testKey, tx.id)).toMatchObject({
      status: 'paid',
      amount_paid: 15_000,
      underpaid: rest,
      overpaid: 0,
      payment: { id: part.id },
    });
    const events = await eventsOf(tx.id, 'transaction.paid');
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.payload).data).toMatchObject({ status: 'paid', amount_paid: 15_000, underpaid: rest });
    const audit = (await auditOf(tx.id)).filter((a) => a.action === 'transaction.accept_received');
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]!.details!)).toMatchObject({
      total_amount: tx.total_amount,
      amount_paid: 15_000,
      underpaid: rest,
      payments: 1,
    });
    // Once paid, a second accept is refused and changes nothing.
    await expect(acceptReceived(t.deps, { trxid: tx.id, actor: TEST_ACTOR })).rejects.toMatchObject({
      code: 'transaction_already_paid',
    });
    expect(await eventsOf(tx.id, 'transaction.paid')).toHaveLength(1);
  });

  it('closes an expired one that received a part: paid late, the rest underpaid (its part leaves "on open transactions")', async () => {
    const { tx } = await keptOpen(7_000);
    const before = t.clock.ms;
    t.clock.ms = tx.expires_at + 1_000;
    try {
      await expireDue(t.deps);
    } finally {
      // The other tests' transactions and sessions live at the file's own time.
      t.clock.ms = before;
    }
    expect((await readTransaction(t.deps.db, tx.id))!.status).toBe('expired');
    const { transaction } = await acceptReceived(t.deps, { trxid: tx.id, actor: TEST_ACTOR });
    expect(transaction).toMatchObject({
      status: 'paid',
      paid_late: 1,
      amount_paid: 7_000,
      underpaid: tx.total_amount - 7_000,
    });
    expect(await eventsOf(tx.id, 'transaction.paid')).toHaveLength(1);
  });

  it('refuses a transaction that received nothing, a cancelled one, an unknown one and another merchant (scoped) with clear codes', async () => {
    const fresh = await newTransaction();
    await expect(acceptReceived(t.deps, { trxid: fresh.id, actor: TEST_ACTOR })).rejects.toMatchObject({
      code: 'transaction_not_kept_open',
    });
    const { tx: cancelled } = await keptOpen(5_000);
    await cancelTransaction(t.deps, { trxid: cancelled.id, owner: null, actor: TEST_ACTOR });
    await expect(acceptReceived(t.deps, { trxid: cancelled.id, actor: TEST_ACTOR })).rejects.toMatchObject({
      code: 'transaction_not_kept_open',
    });
    await expect(
      acceptReceived(t.deps, { trxid: 'trx_000000000000000000000000', actor: TEST_ACTOR }),
    ).rejects.toMatchObject({ code: 'transaction_not_found' });
    const { tx: open } = await keptOpen(6_000);
    await expect(
      acceptReceived(t.deps, { trxid: open.id, actor: TEST_ACTOR, merchants: ['mer_someone_else'] }),
    ).rejects.toMatchObject({
      code: 'transaction_not_found',
    });
    expect((await readTransaction(t.deps.db, open.id))!.status).toBe('pending');
    expect(await eventsOf(fresh.id, 'transaction.paid')).toHaveLength(0);
    expect(await eventsOf(open.id, 'transaction.paid')).toHaveLength(0);
  });

  it('transactions accept TRXID [--json] through the CLI, audited with the operator; a refusal exits non-zero', async () => {
    const { tx } = await keptOpen(12_000);
    const r = await cli(t, ['transactions', 'accept', tx.id, '--json'], { QRIS_OPERATOR: 'sari' });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json).toMatchObject({
      trxid: tx.id,
      status: 'paid',
      amount_paid: 12_000,
      underpaid: tx.total_amount - 12_000,
      merchant_id: t.merchant.id,
    });
    expect((await auditOf(tx.id)).find((a) => a.action === 'transaction.accept_received')).toMatchObject({
      actor: 'sari',
    });
    const again = await cli(t, ['transactions', 'accept', tx.id]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('transaction_already_paid');
    const { tx: other } = await keptOpen(3_000);
    const human = await cli(t, ['transactions', 'accept', other.id]);
    expect(human.stdout).toContain(
      `${other.id} is paid with ${formatRupiah(3_000)} received of ${formatRupiah(other.total_amount)}; underpaid ${formatRupiah(other.total_amount - 3_000)}`,
    );
    const none = await cli(t, ['transactions', 'accept', (await newTransaction()).id]);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('transaction_not_kept_open');
  });
});

describe('accepting what was received while another part is assigned at once', () => {
  it('never loses a part: the transaction ends with amount_paid the sum of its bound payments, at most one transaction.paid', async () => {
    for (let round = 0; round < 6; round++) {
      const { tx } = await keptOpen(5_000);
      const r = await recordPayment(t.deps, {
        merchantId: t.merchant.id,
        mode: 'test',
        source: 'accept-feed',
        sourcePaymentId: `acc-race-${++seq}`,
        amount: 2_000,
        paidAt: t.clock.now(),
      });
      expect(r.outcome).toBe('unmatched');
      const [accepted, assigned] = await Promise.allSettled([
        acceptReceived(t.deps, { trxid: tx.id, actor: TEST_ACTOR }),
        assignPayment(t.deps, { paymentId: r.payment.id, trxid: tx.id, actor: TEST_ACTOR, keepOpen: true }),
      ]);
      // Whichever came second was refused with a code, or saw the other's change and built on it.
      for (const settled of [accepted, assigned]) {
        if (settled.status === 'rejected') expect((settled.reason as { code?: string }).code).toMatch(/^[a-z_]+$/);
      }
      expect(accepted.status === 'fulfilled' || assigned.status === 'fulfilled').toBe(true);
      const after = (await readTransaction(t.deps.db, tx.id))!;
      const bound = await t.deps.db
        .selectFrom('payments')
        .select('amount')
        .where('transaction_id', '=', tx.id)
        .where('status', '=', 'matched')
        .where('reason', 'is', null)
        .execute();
      expect(after.amount_paid).toBe(bound.reduce((sum, p) => sum + p.amount, 0));
      expect(await eventsOf(tx.id, 'transaction.paid')).toHaveLength(after.status === 'paid' ? 1 : 0);
      if (accepted.status === 'fulfilled')
        expect(after).toMatchObject({ status: 'paid', underpaid: after.total_amount - after.amount_paid! });
    }
  });
});

describe('confirming a payment by hand on a kept-open transaction', () => {
  it('records a manual payment of only the rest, which pays it in full', async () => {
    const { tx } = await keptOpen(20_000);
    const rest = tx.total_amount - 20_000;
    const r = await confirmPayment(t.deps, {
      trxid: tx.id,
      reference: `BCA-${tx.id}`,
      amount: null,
      actor: TEST_ACTOR,
    });
    expect(r).toMatchObject({
      outcome: 'matched',
      payment: { amount: rest, source: 'manual', status: 'matched', transaction_id: tx.id },
    });
    expect(r.transaction).toMatchObject({ status: 'paid', amount_paid: tx.total_amount, underpaid: 0, overpaid: 0 });
    expect(await eventsOf(tx.id, 'transaction.paid')).toHaveLength(1);
    // Nothing lands unmatched.
    expect(
      await t.deps.db.selectFrom('payments').select('id').where('compared_transaction_id', '=', tx.id).execute(),
    ).toEqual([]);
  });

  it('a stated amount other than the rest is still refused by the matcher (unmatched, amount_mismatch)', async () => {
    const { tx } = await keptOpen(20_000);
    const r = await confirmPayment(t.deps, {
      trxid: tx.id,
      reference: `BCA-whole-${tx.id}`,
      amount: tx.total_amount,
      actor: TEST_ACTOR,
    });
    expect(r).toMatchObject({ outcome: 'unmatched', reason: 'amount_mismatch' });
    expect((await readTransaction(t.deps.db, tx.id))!).toMatchObject({ status: 'pending', amount_paid: 20_000 });
  });
});

describe('the console transaction page of a kept-open transaction', () => {
  it('offers "Accept what was received" to an owner, with CSRF; the confirmation speaks of the rest; a cashier gets a 404', async () => {
    const other = (await seedMerchant(t.deps, 1, 'Accept Other')).merchant.id;
    await addOperator(t.deps, 'ops-accept@example.test');
    await addMerchantUser(t.deps, [t.merchant.id], 'owner-accept@example.test');
    await addUser(
      t.deps,
      { email: 'cashier-accept@example.test', password: PASSWORD, role: 'cashier', merchantIds: [t.merchant.id] },
      TEST_ACTOR,
    );
    const owner = new ConsoleClient(t.app);
    await owner.logIn('owner-accept@example.test');
    const { tx } = await keptOpen(9_000);
    const detail = `/dashboard/transactions/${tx.id}`;
    const rest = formatRupiah(tx.total_amount - 9_000);
    const page = await owner.get(detail);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(
      `<form method="post" action="${detail}/accept" data-confirm="Mark it paid with ${formatRupiah(9_000)} received, ${rest} short?">`,
    );
    expect(page.body).toContain('<button type="submit">Accept what was received</button>');
    expect(page.body).toContain(`of the ${rest} still due.`);
    expect(page.body).toContain(`data-confirm="Record a payment of the ${rest} still due with this reference?"`);
    const id = await owner.get(detail, { 'accept-language': 'id' });
    expect(id.body).toContain('Terima yang sudah diterima');

    // Without the CSRF token nothing changes.
    const forged = await owner.post(`${detail}/accept`, { _csrf: 'forged' }, detail);
    expect(forged.statusCode).toBe(403);
    expect((await readTransaction(t.deps.db, tx.id))!.status).toBe('pending');

    const cashier = new ConsoleClient(t.app);
    await cashier.logIn('cashier-accept@example.test');
    expect((await cashier.post(`${detail}/accept`, {}, detail)).statusCode).toBe(404);
    expect((await readTransaction(t.deps.db, tx.id))!.status).toBe('pending');

    const done = await owner.post(`${detail}/accept`, {}, detail);
    expect(done.statusCode).toBe(303);
    const after = await owner.get(detail);
    expect(noticeOf(after.body)).toBe(
      'The transaction is paid with what it received; the rest is recorded as underpaid.',
    );
    expect(after.body).not.toContain('/accept"');
    expect(after.body).toContain('Accepted what was received by user:owner-accept@example.test');
    expect((await auditOf(tx.id)).find((a) => a.action === 'transaction.accept_received')).toMatchObject({
      actor: 'user:owner-accept@example.test',
    });
    // Twice: the page says it is paid already.
    await owner.post(`${detail}/accept`, {}, detail);
    expect(noticeOf((await owner.get(detail)).body)).toBe('This transaction is already paid. Nothing was changed.');

    // An operator may too; a transaction that received nothing shows no such button.
    const ops = new ConsoleClient(t.app);
    await ops.logIn('ops-accept@example.test');
    const { tx: second } = await keptOpen(4_000, other);
    expect(
      (await ops.post(`/dashboard/transactions/${second.id}/accept`, {}, `/dashboard/transactions/${second.id}`))
        .statusCode,
    ).toBe(303);
    expect((await readTransaction(t.deps.db, second.id))!).toMatchObject({ status: 'paid', amount_paid: 4_000 });
    const fresh = await newTransaction();
    expect((await owner.get(`/dashboard/transactions/${fresh.id}`)).body).not.toContain('/accept"');
    // Posted anyway (an old page, a crafted form), the refusal transaction_not_kept_open is the page's notice.
    expect(
      (await owner.post(`/dashboard/transactions/${fresh.id}/accept`, {}, `/dashboard/transactions/${fresh.id}`))
        .statusCode,
    ).toBe(303);
    expect(noticeOf((await owner.get(`/dashboard/transactions/${fresh.id}`)).body)).toBe(
      'Only a pending or expired transaction that received a part payment can be closed with what it received. Nothing was changed.',
    );
    expect((await readTransaction(t.deps.db, fresh.id))!.status).toBe('pending');
  });
});
