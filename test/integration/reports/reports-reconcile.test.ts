// The daily report accounts for every rupiah received (issue 37, section 2): over one WIB day with every
// kind of payment (a full payment, a part payment on a transaction kept open, a part payment then accepted,
// a part payment of a transaction completed the next day, a part payment of one that then expired, an
// unmatched payment, a double payment refunded and one not, another source's report of a payment, a
// transaction refund), each payment received that day is in exactly one of paid, received_open, unmatched
// and returned, and their sum is the sum of the payments table's amounts of that day (another source's
// reports excepted). Made through the real services; runs on SQLite and, on the PostgreSQL run, PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORTED_BY_ANOTHER_SOURCE } from '../../../src/domain/payment.js';
import { cliActor } from '../../../src/cli/cli-actor.js';
import { acceptReceived } from '../../../src/services/payments/accept-received.js';
import { assignPayment } from '../../../src/services/payments/assign-payment.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { refundDoublePayment } from '../../../src/services/refunds/refund-double-payment.js';
import { dailyReport } from '../../../src/services/reports/daily-report.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { expireDue } from '../../../src/services/transactions/expire-due.js';
import { createInput, createTestContext, seedMerchant, type TestContext } from '../../helpers/context.js';
import { insertRefundRow } from '../../helpers/refund-rows.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;
/** Midnight WIB starting 2026-11-`d`. */
const wibMidnight = (d: number) => Date.UTC(2026, 10, d) - 7 * HOUR;
const DAY = wibMidnight(10);
const actor = cliActor('test');

let t: TestContext;
let merchant: string;
let seq = 0;
let base = 20_000;

/** What each figure of the 10th must be, kept while the day is made. */
const expected = {
  paid: [] as number[],
  open: [] as number[],
  unmatched: [] as number[],
  returned: [] as number[],
  refunded: [] as number[],
};
/** The part payment of the 10th whose transaction is completed on the 11th, and the rest paid then. */
let nextDayRest = 0;

async function create(at: number, expiresInSeconds = 86_400) {
  t.clock.ms = at;
  base += 1_000;
  return (await createTransaction(t.deps, createInput(merchant, base, { mode: 'live', expiresInSeconds }))).transaction;
}

async function pay(at: number, amount: number, options: { trxid?: string; source?: string } = {}) {
  t.clock.ms = at;
  return recordPayment(t.deps, {
    merchantId: merchant,
    mode: 'live',
    source: options.source ?? 'src_phone',
    sourcePaymentId: `r${++seq}`,
    amount,
    paidAt: at - 10_000,
    ...(options.trxid ? { trxid: options.trxid } : {}),
  });
}

/** A part payment (unmatched on arrival) assigned to `trxid`, which is kept open for the rest. */
async function part(at: number, trxid: string, amount: number) {
  const r = await pay(at, amount);
  expect(r.outcome).toBe('unmatched');
  t.clock.ms = at + MINUTE;
  const assigned = await assignPayment(t.deps, { paymentId: r.payment.id, trxid, actor, keepOpen: true });
  expect(assigned.keptOpen).toBe(true);
  return r.payment;
}

beforeAll(async () => {
  t = await createTestContext();
  merchant = (await seedMerchant(t.deps, 0, 'Warung Rekonsiliasi')).merchant.id;

  // The 9th: a payment that is not the 10th's.
  const before = await create(wibMidnight(9) + 12 * HOUR);
  expect((await pay(wibMidnight(9) + 12 * HOUR + MINUTE, before.total_amount, { trxid: before.id })).outcome).toBe(
    'matched',
  );

  // A full payment, matched by the matcher; half of it refunded later that day (a transaction refund).
  const full = await create(DAY + 8 * HOUR);
  expect((await pay(DAY + 8 * HOUR + MINUTE, full.total_amount, { trxid: full.id })).outcome).toBe('matched');
  expected.paid.push(full.total_amount);
  const refund = (amount: number, status: 'succeeded' | 'failed', completedAt: number) =>
    insertRefundRow(t.deps, {
      transactionId: full.id,
      merchantId: merchant,
      amount,
      status,
      createdAt: DAY + 9 * HOUR,
      completedAt,
    });
  await refund(5_000, 'succeeded', DAY + 9 * HOUR + MINUTE);
  expected.refunded.push(5_000);
  // A failed refund moved no money.
  await refund(1_000, 'failed', DAY + 10 * HOUR);

  // A part payment on a transaction kept open for the rest (still pending at the end of the day).
  const open = await create(DAY + 9 * HOUR);
  await part(DAY + 9 * HOUR + 5 * MINUTE, open.id, 7_000);
  expected.open.push(7_000);

  // Two part payments, then "accept what was received": paid with what it received.
  const accepted = await create(DAY + 10 * HOUR);
  await part(DAY + 10 * HOUR + MINUTE, accepted.id, 4_000);
  await part(DAY + 10 * HOUR + 3 * MINUTE, accepted.id, 3_000);
  t.clock.ms = DAY + 10 * HOUR + 10 * MINUTE;
  expect((await acceptReceived(t.deps, { trxid: accepted.id, actor })).transaction).toMatchObject({
    status: 'paid',
    amount_paid: 7_000,
  });
  expected.paid.push(4_000, 3_000);

  // A part payment on a transaction that then expired, its part kept.
  const expiring = await create(DAY + 11 * HOUR, 600);
  await part(DAY + 11 * HOUR + MINUTE, expiring.id, 2_500);
  t.clock.ms = DAY + 12 * HOUR;
  expect(await expireDue(t.deps)).toBeGreaterThanOrEqual(1);
  expect(
    await t.deps.db
      .selectFrom('transactions')
      .select(['status', 'amount_paid'])
      .where('id', '=', expiring.id)
      .executeTakeFirstOrThrow(),
  ).toEqual({
    status: 'expired',
    amount_paid: 2_500,
  });
  expected.open.push(2_500);

  // A payment that fits nothing.
  const stray = await pay(DAY + 13 * HOUR, 99_111);
  expect(stray.outcome).toBe('unmatched');
  expected.unmatched.push(99_111);

  // A double payment (the same source reports a second payment of a paid transaction), refunded.
  const twice = await create(DAY + 14 * HOUR);
  expect((await pay(DAY + 14 * HOUR + MINUTE, twice.total_amount, { trxid: twice.id })).outcome).toBe('matched');
  const double = await pay(DAY + 14 * HOUR + 2 * MINUTE, twice.total_amount, { trxid: twice.id });
  expect(double).toMatchObject({ outcome: 'unmatched', reason: 'transaction_already_paid' });
  t.clock.ms = DAY + 15 * HOUR;
  await refundDoublePayment(t.deps, { paymentId: double.payment.id, reason: 'paid twice', actor });
  expected.paid.push(twice.total_amount);
  expected.returned.push(twice.total_amount);

  // A double payment nobody refunded (yet): unmatched.
  const again = await create(DAY + 16 * HOUR);
  expect((await pay(DAY + 16 * HOUR + MINUTE, again.total_amount, { trxid: again.id })).outcome).toBe('matched');
  const kept = await pay(DAY + 16 * HOUR + 2 * MINUTE, again.total_amount, { trxid: again.id });
  expect(kept).toMatchObject({ outcome: 'unmatched', reason: 'transaction_already_paid' });
  expected.paid.push(again.total_amount);
  expected.unmatched.push(again.total_amount);

  // One payment reported by two sources: the bank's report is not new money.
  const seen = await create(DAY + 17 * HOUR);
  expect((await pay(DAY + 17 * HOUR + MINUTE, seen.total_amount, { trxid: seen.id })).outcome).toBe('matched');
  const echo = await pay(DAY + 17 * HOUR + 4 * MINUTE, seen.total_amount, { source: 'src_bank' });
  expect(echo).toMatchObject({ outcome: 'duplicate', reason: REPORTED_BY_ANOTHER_SOURCE });
  expected.paid.push(seen.total_amount);

  // A part payment late on the 10th; the transaction is completed by the rest after midnight.
  const crossing = await create(DAY + 22 * HOUR);
  await part(DAY + 23 * HOUR, crossing.id, 6_000);
  expected.paid.push(6_000);
  nextDayRest = crossing.total_amount - 6_000;
  // The matcher leaves a transaction holding a part alone: a person assigns the rest, which completes it.
  const rest = await pay(wibMidnight(11) + HOUR, nextDayRest);
  expect(rest.outcome).toBe('unmatched');
  const completed = await assignPayment(t.deps, { paymentId: rest.payment.id, trxid: crossing.id, actor });
  expect(completed.transaction).toMatchObject({ status: 'paid', amount_paid: crossing.total_amount });
}, 60_000);
afterAll(async () => t?.close());

const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);

/** The payments table's count and sum of what was received in [from, before), another source's reports excepted. */
async function received(from: number, before: number): Promise<{ count: number; sum: number }> {
  const rows = await t.deps.db
    .selectFrom('payments')
    .select(['amount', 'reason'])
    .where('merchant_id', '=', merchant)
    .where('mode', '=', 'live')
    .where('received_at', '>=', from)
    .where('received_at', '<', before)
    .execute();
  const money = rows.filter((r) => r.reason !== REPORTED_BY_ANOTHER_SOURCE);
  return { count: money.length, sum: money.reduce((s, r) => s + Number(r.amount), 0) };
}

describe('the daily report of a day with every kind of payment', () => {
  it('puts every payment received that day in exactly one figure, and they add up to the payments table', async () => {
    const report = await dailyReport(t.deps, null, {
      from: '2026-11-10',
      to: '2026-11-10',
      merchantId: merchant,
      mode: 'live',
    });
    const row = report.rows[0]!;
    const table = await received(DAY, wibMidnight(11));
    // The identity: paid + received on open transactions + unmatched + returned = what the table received.
    expect(row.paid_sum + (row.received_open_sum ?? 0) + row.unmatched_sum + (row.returned_sum ?? 0)).toBe(table.sum);
    expect(row.paid_count + (row.received_open_count ?? 0) + row.unmatched_count + (row.returned_count ?? 0)).toBe(
      table.count,
    );
    expect({ count: row.received_count, sum: row.received_sum }).toEqual(table);
    // Each figure as the day was made.
    expect(row).toMatchObject({
      paid_count: expected.paid.length,
      paid_sum: sum(expected.paid),
      received_open_count: expected.open.length,
      received_open_sum: sum(expected.open),
      unmatched_count: expected.unmatched.length,
      unmatched_sum: sum(expected.unmatched),
      returned_count: expected.returned.length,
      returned_sum: sum(expected.returned),
      refund_count: expected.refunded.length,
      refunded_sum: sum(expected.refunded),
    });
    // The breakdown by source adds up to the paid figures (the bank's report of the phone's payment is not in it).
    expect(row.by_source).toEqual({ src_phone: { count: expected.paid.length, sum: sum(expected.paid) } });
    expect(report.totals).toMatchObject({ received_sum: table.sum, paid_sum: row.paid_sum });
  });

  it('the rest received after midnight counts on the next day, and so does each day of the range', async () => {
    const report = await dailyReport(t.deps, null, {
      from: '2026-11-09',
      to: '2026-11-11',
      merchantId: merchant,
      mode: 'live',
    });
    for (const [i, row] of report.rows.entries()) {
      const table = await received(wibMidnight(9 + i), wibMidnight(10 + i));
      expect({ count: row.received_count, sum: row.received_sum }, row.day).toEqual(table);
      expect(row.paid_sum + row.received_open_sum + row.unmatched_sum + row.returned_sum, row.day).toBe(table.sum);
    }
    expect(report.rows[2]).toMatchObject({
      paid_count: 1,
      paid_sum: nextDayRest,
      received_open_sum: 0,
      unmatched_sum: 0,
      returned_sum: 0,
    });
    const all = await received(wibMidnight(9), wibMidnight(12));
    expect(report.totals.received_sum).toBe(all.sum);
    expect(
      report.totals.paid_sum +
        report.totals.received_open_sum +
        report.totals.unmatched_sum +
        report.totals.returned_sum,
    ).toBe(all.sum);
  });
});
