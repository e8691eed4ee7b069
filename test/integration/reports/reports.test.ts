// The daily report reconciles (issue 28, section 3): a month of data made through the real services
// (creates, payments matched and unmatched, a payment accepted with a difference, cashiers' sales, late
// payments across midnight WIB, another merchant, test mode), refunds inserted as rows, and the report
// checked against a ledger kept while making them, against the payments table of each day, and against
// its own totals. Every kind of payment in one day: reports-reconcile.test.ts. Runs on SQLite and, on the
// PostgreSQL run, on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIGURE_KEYS, type FigureKey } from '../../../src/domain/daily-report.js';
import { wibDay } from '../../../src/domain/wib.js';
import type { Viewer } from '../../../src/domain/viewer.js';
import { parseTransactionFilters, wibDate } from '../../../src/domain/transaction-filters.js';
import { cliActor } from '../../../src/cli/cli-actor.js';
import { assignPayment } from '../../../src/services/payments/assign-payment.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { dailyReport } from '../../../src/services/reports/daily-report.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { exportTransactions } from '../../../src/services/transactions/export-transactions.js';
import { createTestContext, createInput, seedMerchant, type TestContext } from '../../helpers/context.js';
import { cli } from '../../helpers/payment-sources.js';
import { insertRefundRow } from '../../helpers/refund-rows.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;
/** Midnight WIB starting 2026-10-`d` (d may run past the month's end). */
const wibMidnight = (d: number) => Date.UTC(2026, 9, d) - 7 * HOUR;
const dayText = (ms: number) => wibDate(ms);

/** The test's own count of every figure, kept beside the report's (the figures' names are the domain's). */
type Ledger = Record<FigureKey, number>;

const emptyLedger = (): Ledger => Object.fromEntries(FIGURE_KEYS.map((key) => [key, 0])) as Ledger;

let t: TestContext;
let merchantA: string;
let merchantB: string;
const CASHIER = 'usr_reportcashier';
/** What the report must say, per merchant and WIB day, live mode: kept while the data is made. */
const ledger = new Map<string, Ledger>();
const bySource = new Map<string, number>();
let cashierSum = 0;
let amount = 10_000;
/** A fresh amount for each create, so no two pending totals compete for unique codes. */
const nextAmount = () => {
  amount += 100;
  return amount;
};
let seq = 0;
/** A fixed pseudo-random sequence, so a failure is the same on every run. */
let seed = 28;
const rand = (n: number) => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return Math.floor(seed / 65_536) % n;
};

function entry(merchantId: string, ms: number): Ledger {
  const key = `${merchantId} ${dayText(ms)}`;
  let e = ledger.get(key);
  if (!e) {
    e = emptyLedger();
    ledger.set(key, e);
  }
  return e;
}

/**
 * A live (or test) transaction created at `createdAt`, paid at `paidAt` through a payment that names it,
 * which the gateway receives a second after it was paid (or created, if later).
 */
async function paidTransaction(
  merchantId: string,
  createdAt: number,
  paidAt: number,
  options: { source?: string; cashier?: boolean; mode?: 'live' | 'test'; expiresIn?: number } = {},
) {
  const mode = options.mode ?? 'live';
  const source = options.source ?? 'simulator';
  t.clock.ms = createdAt;
  const { transaction } = await createTransaction(
    t.deps,
    createInput(merchantId, nextAmount(), {
      mode,
      expiresInSeconds: options.expiresIn ?? 900,
      ...(options.cashier ? { sale: { userId: CASHIER, email: 'cashier@example.com', description: null } } : {}),
    }),
  );
  const receivedAt = Math.max(paidAt, createdAt) + 1_000;
  t.clock.ms = receivedAt;
  const r = await recordPayment(t.deps, {
    merchantId,
    mode,
    source,
    sourcePaymentId: `p${++seq}`,
    amount: transaction.total_amount,
    paidAt,
    trxid: transaction.id,
  });
  expect(r.outcome).toBe('matched');
  if (mode === 'live') {
    const e = entry(merchantId, receivedAt);
    e.paid_count++;
    e.paid_sum += transaction.total_amount;
    e.received_count++;
    e.received_sum += transaction.total_amount;
    if (merchantId === merchantA) bySource.set(source, (bySource.get(source) ?? 0) + transaction.total_amount);
    if (options.cashier && merchantId === merchantA) cashierSum += transaction.total_amount;
  }
  return transaction;
}

/** A payment that fits no transaction, received at `receivedAt`. */
async function unmatchedPayment(merchantId: string, receivedAt: number, mode: 'live' | 'test' = 'live') {
  t.clock.ms = receivedAt;
  const paid = 999_000 + ++seq;
  const r = await recordPayment(t.deps, {
    merchantId,
    mode,
    source: 'feed-a',
    sourcePaymentId: `u${seq}`,
    amount: paid,
    paidAt: receivedAt - 5_000,
  });
  expect(r.outcome).toBe('unmatched');
  if (mode === 'live') {
    const e = entry(merchantId, receivedAt);
    e.unmatched_count++;
    e.unmatched_sum += paid;
    e.received_count++;
    e.received_sum += paid;
  }
  return r.payment;
}

async function refund(
  tx: { id: string; merchant_id: string; total_amount: number },
  status: 'succeeded' | 'failed' | 'pending',
  createdAt: number,
  completedAt: number | null,
) {
  const part = Math.floor(tx.total_amount / 2);
  await insertRefundRow(t.deps, {
    transactionId: tx.id,
    merchantId: tx.merchant_id,
    amount: part,
    status,
    createdAt,
    completedAt,
  });
  if (status === 'succeeded') {
    const e = entry(tx.merchant_id, completedAt!);
    e.refund_count++;
    e.refunded_sum += part;
  }
}

const operator: Viewer = {
  userId: 'usr_op',
  email: 'op@example.com',
  role: 'operator',
  merchantIds: [],
  sessionKey: 'k',
  actor: { kind: 'user' as const, email: 'op@example.com' },
};

/** The paid transactions of the list (the console's CSV export) whose paid_at falls on `day` (or a month, YYYY-MM), as count and sum of amount_paid. */
async function listedPaid(merchantId: string, day: string): Promise<{ count: number; sum: number }> {
  const { filters, problems } = parseTransactionFilters({ status: 'paid', mode: 'live', merchant: merchantId });
  expect(problems).toEqual([]);
  const { pages } = await exportTransactions(t.deps, operator, filters);
  let count = 0;
  let sum = 0;
  for await (const page of pages) {
    for (const { transaction } of page) {
      if (transaction.paid_at !== null && wibDate(transaction.paid_at).startsWith(day)) {
        count++;
        sum += transaction.amount_paid ?? 0;
      }
    }
  }
  return { count, sum };
}

/** The live payments the table received on WIB `day`: all of them, those bound to a paid transaction, those unmatched. */
async function receivedOn(merchantId: string, day: string) {
  const rows = await t.deps.db
    .selectFrom('payments as p')
    .leftJoin('transactions as tx', 'tx.id', 'p.transaction_id')
    .select(['p.amount', 'p.status', 'p.received_at', 'tx.status as tx_status'])
    .where('p.merchant_id', '=', merchantId)
    .where('p.mode', '=', 'live')
    .execute();
  const onDay = rows.filter((r) => wibDate(Number(r.received_at)) === day);
  const tally = (xs: typeof rows) => ({ count: xs.length, sum: xs.reduce((s, r) => s + Number(r.amount), 0) });
  return {
    all: tally(onDay),
    paid: tally(onDay.filter((r) => r.status === 'matched' && r.tx_status === 'paid')),
    unmatched: tally(onDay.filter((r) => r.status === 'unmatched')),
  };
}

beforeAll(async () => {
  t = await createTestContext();
  merchantA = (await seedMerchant(t.deps, 0, 'Warung A')).merchant.id;
  merchantB = (await seedMerchant(t.deps, 1, 'Toko B')).merchant.id;
  const sources = ['simulator', 'feed-a', 'feed-b'];
  for (let d = 1; d <= 31; d++) {
    const start = wibMidnight(d);
    for (const merchantId of [merchantA, merchantB]) {
      const n = rand(4);
      for (let i = 0; i < n; i++) {
        const created = start + 9 * HOUR + rand(600) * MINUTE;
        const tx = await paidTransaction(merchantId, created, created + 2 * MINUTE, {
          source: sources[rand(3)]!,
          cashier: rand(3) === 0,
        });
        const r = rand(5);
        // Refunds: succeeded a day or so later, failed, or still pending; only the first moves money.
        if (r === 0) await refund(tx, 'succeeded', created + HOUR, created + 20 * HOUR);
        if (r === 1) await refund(tx, 'failed', created + HOUR, created + 2 * HOUR);
        if (r === 2) await refund(tx, 'pending', created + HOUR, null);
      }
      for (let i = rand(3); i > 0; i--) await unmatchedPayment(merchantId, start + rand(24 * 60) * MINUTE);
    }
    // Test mode never shows in the live report.
    if (d % 7 === 0) {
      await paidTransaction(merchantA, start + 12 * HOUR, start + 12 * HOUR + MINUTE, { mode: 'test' });
      await unmatchedPayment(merchantA, start + 13 * HOUR, 'test');
    }
  }
}, 120_000);
afterAll(async () => t?.close());

describe('the daily report of a month', () => {
  it('a late payment after midnight WIB counts on the day it was received, not the day it was created', async () => {
    // Created at 23:50 WIB on the 10th, expired at 23:55, paid at 00:05 WIB on the 11th.
    const tx = await paidTransaction(merchantA, wibMidnight(11) - 10 * MINUTE, wibMidnight(11) + 5 * MINUTE, {
      expiresIn: 300,
    });
    const paid = await t.deps.db
      .selectFrom('transactions')
      .select(['paid_late', 'paid_at'])
      .where('id', '=', tx.id)
      .executeTakeFirstOrThrow();
    expect(paid.paid_late).toBe(1);
    const report = await dailyReport(t.deps, null, {
      from: '2026-10-10',
      to: '2026-10-11',
      merchantId: merchantA,
      mode: 'live',
    });
    expect(report.rows.map((r) => r.day)).toEqual(['2026-10-10', '2026-10-11']);
    expect(report.rows[1]!.paid_count).toBe(entry(merchantA, wibMidnight(11)).paid_count);
    expect(report.rows[0]!.paid_count).toBe(entry(merchantA, wibMidnight(10)).paid_count);
  });

  it('a payment received at 23:59:59 WIB and one at 00:00:00 WIB land on different days', async () => {
    const before = await dailyReport(t.deps, null, {
      from: '2026-10-20',
      to: '2026-10-21',
      merchantId: merchantB,
      mode: 'live',
    });
    // Each is received a second after it was paid: the second one, paid at 23:59:59, on the 21st.
    const late = await paidTransaction(merchantB, wibMidnight(21) - 30 * MINUTE, wibMidnight(21) - 2_000);
    const midnight = await paidTransaction(merchantB, wibMidnight(21) - 20 * MINUTE, wibMidnight(21) - 1_000);
    const after = await dailyReport(t.deps, null, {
      from: '2026-10-20',
      to: '2026-10-21',
      merchantId: merchantB,
      mode: 'live',
    });
    expect(after.rows[0]!.paid_count).toBe(before.rows[0]!.paid_count + 1);
    expect(after.rows[0]!.paid_sum).toBe(before.rows[0]!.paid_sum + late.total_amount);
    expect(after.rows[1]!.paid_count).toBe(before.rows[1]!.paid_count + 1);
    expect(after.rows[1]!.paid_sum).toBe(before.rows[1]!.paid_sum + midnight.total_amount);
    // And a refund asked at 23:59 WIB that succeeded at 00:01 counts on the day it succeeded.
    await refund(late, 'succeeded', wibMidnight(21) - MINUTE, wibMidnight(21) + MINUTE);
    const refunded = await dailyReport(t.deps, null, {
      from: '2026-10-20',
      to: '2026-10-21',
      merchantId: merchantB,
      mode: 'live',
    });
    expect(refunded.rows[0]!.refunded_sum).toBe(after.rows[0]!.refunded_sum);
    expect(refunded.rows[1]!.refunded_sum).toBe(after.rows[1]!.refunded_sum + Math.floor(late.total_amount / 2));
  });

  it('a payment accepted with a difference counts what was received (amount_paid), not the total', async () => {
    const day = wibMidnight(15);
    t.clock.ms = day + 8 * HOUR;
    const { transaction } = await createTransaction(
      t.deps,
      createInput(merchantA, nextAmount(), { mode: 'live', expiresInSeconds: 3600 }),
    );
    t.clock.ms += MINUTE;
    const short = await recordPayment(t.deps, {
      merchantId: merchantA,
      mode: 'live',
      source: 'feed-b',
      sourcePaymentId: `short${++seq}`,
      amount: transaction.total_amount - 500,
      paidAt: t.clock.ms,
    });
    expect(short.outcome).toBe('unmatched');
    t.clock.ms += MINUTE;
    const assigned = await assignPayment(t.deps, {
      paymentId: short.payment.id,
      trxid: transaction.id,
      actor: cliActor('test'),
      acceptDifference: true,
    });
    expect(assigned.transaction.amount_paid).toBe(transaction.total_amount - 500);
    const e = entry(merchantA, short.payment.received_at);
    e.paid_count++;
    e.paid_sum += transaction.total_amount - 500;
    e.received_count++;
    e.received_sum += transaction.total_amount - 500;
    bySource.set('feed-b', (bySource.get('feed-b') ?? 0) + transaction.total_amount - 500);
    // Assigned, it is no longer unmatched: the day's unmatched figures never had it (the ledger neither).
  });

  it('every day of the range has a row, each row equals the ledger, and the totals equal the sum of the rows', async () => {
    const report = await dailyReport(t.deps, null, {
      from: '2026-10-01',
      to: '2026-10-31',
      merchantId: null,
      mode: 'live',
    });
    expect(report.rows).toHaveLength(62);
    expect(new Set(report.rows.map((r) => r.merchant_id))).toEqual(new Set([merchantA, merchantB]));
    for (const row of report.rows) {
      const expected = ledger.get(`${row.merchant_id} ${row.day}`) ?? emptyLedger();
      expect({ ...row, by_source: undefined, by_cashier: undefined }, `${row.merchant_id} ${row.day}`).toEqual({
        merchant_id: row.merchant_id,
        day: row.day,
        ...expected,
        by_source: undefined,
        by_cashier: undefined,
      });
      // The breakdowns add up to the day's paid figures.
      expect(Object.values(row.by_source).reduce((s, x) => s + x.sum, 0)).toBe(row.paid_sum);
      expect(Object.values(row.by_source).reduce((s, x) => s + x.count, 0)).toBe(row.paid_count);
    }
    const sum = (key: keyof Ledger) => report.rows.reduce((s, r) => s + r[key], 0);
    for (const key of FIGURE_KEYS) {
      expect(report.totals[key], key).toBe(sum(key));
    }
    // The month had activity: the figures are not all zeros.
    expect(report.totals.paid_count).toBeGreaterThan(30);
    expect(report.totals.refunded_sum).toBeGreaterThan(0);
    expect(report.totals.unmatched_count).toBeGreaterThan(0);
  });

  it("each day's figures equal the payments the payments table received that WIB day", async () => {
    const report = await dailyReport(t.deps, null, {
      from: '2026-10-01',
      to: '2026-10-31',
      merchantId: merchantA,
      mode: 'live',
    });
    for (const row of report.rows) {
      const day = await receivedOn(merchantA, row.day);
      expect(day.all, row.day).toEqual({ count: row.received_count, sum: row.received_sum });
      expect(day.paid, row.day).toEqual({ count: row.paid_count, sum: row.paid_sum });
      expect(day.unmatched, row.day).toEqual({ count: row.unmatched_count, sum: row.unmatched_sum });
    }
  });

  it("the month's paid figures equal the paid transactions of the transactions list paid that month", async () => {
    // Here every transaction is paid by one payment, received a second after its paid_at and none across
    // the month's ends, so the month's figures are the list's (a day's may differ at midnight, a part
    // payment counts on the day it was received: docs/payments.md, "Reports").
    const report = await dailyReport(t.deps, null, {
      from: '2026-10-01',
      to: '2026-10-31',
      merchantId: merchantA,
      mode: 'live',
    });
    expect(await listedPaid(merchantA, '2026-10')).toEqual({
      count: report.totals.paid_count,
      sum: report.totals.paid_sum,
    });
  });

  it('breaks paid figures down by source and by cashier', async () => {
    const report = await dailyReport(t.deps, null, {
      from: '2026-10-01',
      to: '2026-10-31',
      merchantId: merchantA,
      mode: 'live',
    });
    const sources = Object.fromEntries(Object.entries(report.totals.by_source).map(([k, v]) => [k, v.sum]));
    expect(sources).toEqual(Object.fromEntries(bySource));
    expect(report.totals.by_cashier[CASHIER]?.sum ?? 0).toBe(cashierSum);
    expect(Object.keys(report.totals.by_cashier).every((k) => k === CASHIER)).toBe(true);
  });

  it('refunded_sum counts only succeeded refunds', async () => {
    const report = await dailyReport(t.deps, null, {
      from: '2026-09-01',
      to: '2026-11-30',
      merchantId: null,
      mode: 'live',
    });
    const succeeded = await t.deps.db
      .selectFrom('refunds')
      .select((eb) => eb.fn.sum<number>('amount').as('s'))
      .where('status', '=', 'succeeded')
      .where('mode', '=', 'live')
      .executeTakeFirstOrThrow();
    const all = await t.deps.db
      .selectFrom('refunds')
      .select((eb) => eb.fn.sum<number>('amount').as('s'))
      .executeTakeFirstOrThrow();
    expect(report.totals.refunded_sum).toBe(Number(succeeded.s));
    expect(Number(all.s)).toBeGreaterThan(report.totals.refunded_sum);
  });

  it('test mode is its own report', async () => {
    const report = await dailyReport(t.deps, null, {
      from: '2026-10-01',
      to: '2026-10-31',
      merchantId: merchantA,
      mode: 'test',
    });
    expect(report.totals.paid_count).toBe(4);
    expect(report.totals.unmatched_count).toBe(4);
    expect(report.rows.filter((r) => r.paid_count > 0).map((r) => r.day)).toEqual([
      '2026-10-07',
      '2026-10-14',
      '2026-10-21',
      '2026-10-28',
    ]);
  });

  it('the CLI prints one object per day, zeros included, equal to the service', async () => {
    const one = await cli(t, [
      'reports',
      'daily',
      '--from',
      '2026-10-01',
      '--to',
      '2026-10-31',
      '--merchant',
      merchantA,
      '--json',
    ]);
    expect(one.code, one.stdout + one.stderr).toBe(0);
    const service = await dailyReport(t.deps, null, {
      from: '2026-10-01',
      to: '2026-10-31',
      merchantId: merchantA,
      mode: 'live',
    });
    expect(one.json!.items).toEqual(service.rows);
    expect(one.json!.items).toHaveLength(31);
    for (const item of one.json!.items) {
      expect(item).toMatchObject({
        day: expect.any(String),
        paid_count: expect.any(Number),
        paid_sum: expect.any(Number),
        refunded_sum: expect.any(Number),
        unmatched_count: expect.any(Number),
        received_open_sum: expect.any(Number),
        returned_sum: expect.any(Number),
        received_sum: expect.any(Number),
      });
    }
    expect(one.json!.totals).toEqual(service.totals);

    const all = await cli(t, ['reports', 'daily', '--from', '2026-10-30', '--to', '2026-11-02', '--json']);
    expect(
      all.json!.items.map((i: { merchant_id: string; day: string }) => `${i.merchant_id} ${i.day}`).sort(),
    ).toEqual(
      [merchantA, merchantB]
        .flatMap((m) => ['2026-10-30', '2026-10-31', '2026-11-01', '2026-11-02'].map((d) => `${m} ${d}`))
        .sort(),
    );

    const text = await cli(t, [
      'reports',
      'daily',
      '--from',
      '2026-10-07',
      '--to',
      '2026-10-07',
      '--merchant',
      merchantA,
      '--mode',
      'test',
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /2026-10-07: received 2 Rp[0-9.]+ = 1 paid Rp[0-9.]+ \+ 0 on open transactions Rp0 \+ 1 unmatched Rp999\.[0-9]{3} \+ 0 returned Rp0; refunded Rp0/,
    );
  });

  it('refuses a bad range with invalid_parameter and an unknown merchant with merchant_not_found', async () => {
    const refused = async (argv: string[]) => (await cli(t, ['reports', 'daily', ...argv, '--json'])).json!.error;
    expect(await refused(['--from', '2026-10-02', '--to', '2026-10-01'])).toMatchObject({
      code: 'invalid_parameter',
      param: 'to',
    });
    expect(await refused(['--from', '2026-02-30', '--to', '2026-03-01'])).toMatchObject({
      code: 'invalid_parameter',
      param: 'from',
    });
    expect(await refused(['--from', '2025-01-01', '--to', '2026-01-02'])).toMatchObject({
      code: 'invalid_parameter',
      param: 'to',
    });
    expect(await refused(['--from', '2026-10-01', '--to', '2026-10-01', '--merchant', 'mch_nope'])).toMatchObject({
      code: 'merchant_not_found',
    });
    // A merchant user's scope: another merchant is not found, as an unknown one.
    await expect(
      dailyReport(t.deps, [merchantA], { from: '2026-10-01', to: '2026-10-01', merchantId: merchantB, mode: 'live' }),
    ).rejects.toMatchObject({
      code: 'merchant_not_found',
    });
    // 366 days is the most.
    const year = await dailyReport(t.deps, [merchantA], {
      from: '2025-11-01',
      to: '2026-11-01',
      merchantId: null,
      mode: 'live',
    });
    expect(year.rows).toHaveLength(366);
    expect(wibDay(wibMidnight(1))).toBe(Date.UTC(2026, 9, 1) / 86_400_000);
  });
});
