import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createMerchant } from '../../../src/services/merchants/create-merchant.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { expireDue } from '../../../src/services/transactions/expire-due.js';
import { getTransaction } from '../../../src/services/transactions/get-transaction.js';
import {
  recordPayment,
  type RecordPaymentResult,
  type ReportedPayment,
} from '../../../src/services/payments/record-payment.js';
import { presentTransaction } from '../../../src/domain/transaction.js';
import type { Mode, TransactionsTable } from '../../../src/storage/schema.js';
import { createTestContext, type TestContext } from '../../helpers/context.js';
import { staticQrisWithNmid } from '../../helpers/qris.js';

let seq = 0;

async function newMerchant(t: TestContext): Promise<string> {
  // Each with an NMID of its own: a second merchant with one NMID is refused.
  seq += 1;
  return (
    await createMerchant(t.deps, {
      name: `Match ${seq}`,
      qris: staticQrisWithNmid(`ID10299${String(seq).padStart(8, '0')}`),
    })
  ).id;
}

async function create(
  t: TestContext,
  merchantId: string,
  amount: number,
  options: { ttl?: number; mode?: Mode } = {},
): Promise<TransactionsTable> {
  const { transaction } = await createTransaction(t.deps, {
    merchantId,
    mode: options.mode ?? 'live',
    amount,
    email: null,
    ref: null,
    expiresInSeconds: options.ttl ?? 600,
    idempotency: null,
  });
  return transaction;
}

function report(
  t: TestContext,
  merchantId: string,
  over: Partial<ReportedPayment> & { amount: number },
): ReportedPayment {
  return {
    merchantId,
    mode: 'live',
    source: 'test-feed',
    sourcePaymentId: `p-${++seq}`,
    paidAt: t.clock.now(),
    ...over,
  };
}

const row = (t: TestContext, id: string) =>
  t.deps.db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('record-payment with the matcher', () => {
  let t: TestContext;
  let m: string;
  beforeAll(async () => {
    t = await createTestContext({ RESERVATION_GRACE_SECONDS: '600', MATCH_CLOCK_SKEW_SECONDS: '120' });
    m = await newMerchant(t);
  });
  afterAll(async () => t.close());

  it('pays the pending transaction holding the total, and cstatus shows the payment details', async () => {
    const tx = await create(t, m, 10_000);
    t.clock.advance(5_000);
    const r = await recordPayment(
      t.deps,
      report(t, m, { amount: tx.total_amount, reference: 'REF-A', issuer: 'DANA', payerName: 'BUDI' }),
    );
    expect(r).toMatchObject({
      outcome: 'matched',
      reason: null,
      transaction: { id: tx.id, status: 'paid', paid_late: 0 },
    });
    const { transaction, payment } = await getTransaction(t.deps, { merchantId: m, mode: 'live' }, tx.id);
    const view = presentTransaction(transaction, payment, t.clock.now(), t.config.publicBaseUrl);
    expect(view).toMatchObject({
      status: 'paid',
      paid_late: false,
      payment: { source: 'test-feed', reference: 'REF-A', issuer: 'DANA', payer_name: 'BUDI', amount: tx.total_amount },
    });
    const events = await t.deps.db.selectFrom('events').select('type').where('transaction_id', '=', tx.id).execute();
    expect(events.map((e) => e.type)).toEqual(['transaction.paid']);
  });

  it('two open transactions of the same base amount are each credited with their own payment', async () => {
    const a = await create(t, m, 25_000);
    const b = await create(t, m, 25_000);
    expect(a.total_amount).not.toBe(b.total_amount);
    const rb = await recordPayment(t.deps, report(t, m, { amount: b.total_amount }));
    const ra = await recordPayment(t.deps, report(t, m, { amount: a.total_amount }));
    expect(ra.transaction?.id).toBe(a.id);
    expect(rb.transaction?.id).toBe(b.id);
    expect((await row(t, a.id)).payment_id).toBe(ra.payment.id);
    expect((await row(t, b.id)).payment_id).toBe(rb.payment.id);
  });

  it('a repeated report is a duplicate and changes nothing', async () => {
    const tx = await create(t, m, 11_000);
    const first = report(t, m, { amount: tx.total_amount });
    const r1 = await recordPayment(t.deps, first);
    const before = await t.deps.db.selectFrom('events').select('id').execute();
    t.clock.advance(1_000);
    const r2 = await recordPayment(t.deps, { ...first, amount: tx.total_amount + 1, paidAt: t.clock.now() });
    expect(r2).toMatchObject({
      outcome: 'duplicate',
      payment: { id: r1.payment.id, amount: tx.total_amount, status: 'matched' },
      transaction: { id: tx.id },
    });
    expect(await t.deps.db.selectFrom('events').select('id').execute()).toHaveLength(before.length);
  });

  it('a second payment of a paid total is unmatched: transaction_already_paid', async () => {
    const tx = await create(t, m, 12_000);
    await recordPayment(t.deps, report(t, m, { amount: tx.total_amount }));
    const again = await recordPayment(t.deps, report(t, m, { amount: tx.total_amount }));
    expect(again).toMatchObject({
      outcome: 'unmatched',
      reason: 'transaction_already_paid',
      payment: { status: 'unmatched', transaction_id: null },
    });
    const unmatchedEvents = await t.deps.db
      .selectFrom('events')
      .selectAll()
      .where('payment_id', '=', again.payment.id)
      .execute();
    expect(unmatchedEvents.map((e) => e.type)).toEqual(['payment.unmatched']);
  });

  it('an amount nobody expects is unmatched: no_matching_transaction', async () => {
    const r = await recordPayment(t.deps, report(t, m, { amount: 777_777 }));
    expect(r).toMatchObject({ outcome: 'unmatched', reason: 'no_matching_transaction', transaction: null });
  });

  it('a named transaction with another amount is amount_mismatch and stays pending', async () => {
    const tx = await create(t, m, 13_000);
    const r = await recordPayment(t.deps, report(t, m, { amount: tx.total_amount - 1, trxid: tx.id }));
    expect(r).toMatchObject({ outcome: 'unmatched', reason: 'amount_mismatch' });
    expect((await row(t, tx.id)).status).toBe('pending');
  });

  it("matches by the acquirer's reference", async () => {
    const tx = await create(t, m, 14_000);
    await t.deps.db
      .updateTable('transactions')
      .set({ acquirer_reference: `ACQ-${tx.id}` })
      .where('id', '=', tx.id)
      .execute();
    const r = await recordPayment(t.deps, report(t, m, { amount: tx.total_amount, reference: `ACQ-${tx.id}` }));
    expect(r).toMatchObject({ outcome: 'matched', transaction: { id: tx.id } });
  });

  it("a live payment never pays a test transaction, nor another merchant's", async () => {
    const test = await create(t, m, 15_000, { mode: 'test' });
    const other = await newMerchant(t);
    expect((await recordPayment(t.deps, report(t, m, { amount: test.total_amount }))).outcome).toBe('unmatched');
    expect(
      (await recordPayment(t.deps, report(t, other, { mode: 'test', amount: test.total_amount, trxid: test.id })))
        .outcome,
    ).toBe('unmatched');
    expect((await row(t, test.id)).status).toBe('pending');
  });

  it('a payment after expiry pays late, before and after the sweeper ran; after the grace it matches nothing', async () => {
    const a = await create(t, m, 16_000, { ttl: 60 });
    const b = await create(t, m, 16_000, { ttl: 60 });
    const c = await create(t, m, 16_000, { ttl: 60 });
    t.clock.advance(61_000);
    const ra = await recordPayment(t.deps, report(t, m, { amount: a.total_amount }));
    expect(ra).toMatchObject({ outcome: 'matched', transaction: { id: a.id, paid_late: 1 } });
    await expireDue(t.deps);
    expect((await row(t, b.id)).status).toBe('expired');
    const rb = await recordPayment(t.deps, report(t, m, { amount: b.total_amount }));
    expect(rb).toMatchObject({ outcome: 'matched', transaction: { id: b.id, status: 'paid', paid_late: 1 } });
    t.clock.advance(600_000);
    const rc = await recordPayment(t.deps, report(t, m, { amount: c.total_amount }));
    expect(rc).toMatchObject({ outcome: 'unmatched', reason: 'no_matching_transaction' });
  });

  it('two different payments racing for one transaction: one pays it, the other is unmatched', async () => {
    for (let i = 0; i < 5; i++) {
      const tx = await create(t, m, 17_000);
      const results = await Promise.all([
        recordPayment(t.deps, report(t, m, { amount: tx.total_amount })),
        recordPayment(t.deps, report(t, m, { amount: tx.total_amount, source: 'other-source' })),
      ]);
      expect(results.map((r) => r.outcome).sort()).toEqual(['matched', 'unmatched']);
      expect(results.find((r) => r.outcome === 'unmatched')?.reason).toBe('transaction_already_paid');
    }
  });

  it('the same payment reported twice at once (notification and polling) pays once', async () => {
    for (let i = 0; i < 5; i++) {
      const tx = await create(t, m, 18_000);
      const same = report(t, m, { amount: tx.total_amount });
      const results = await Promise.all([recordPayment(t.deps, same), recordPayment(t.deps, same)]);
      expect(results.map((r) => r.outcome).sort()).toEqual(['duplicate', 'matched']);
      expect(new Set(results.map((r) => r.payment.id)).size).toBe(1);
    }
  });
});

describe('the clock-skew window', () => {
  let t: TestContext;
  let m: string;
  beforeAll(async () => {
    // One possible code, so a later transaction of the same amount reuses the same total.
    t = await createTestContext({
      UNIQUE_CODE_MIN: '7',
      UNIQUE_CODE_MAX: '7',
      RESERVATION_GRACE_SECONDS: '60',
      MATCH_CLOCK_SKEW_SECONDS: '120',
    });
    m = await newMerchant(t);
  });
  afterAll(async () => t.close());

  it('a payment dated before a reused total was issued is not credited to its new holder', async () => {
    const first = await create(t, m, 30_000, { ttl: 60 });
    const paidForFirst = t.clock.now() + 30_000;
    t.clock.advance(121_000 + 180_000);
    await expireDue(t.deps);
    const second = await create(t, m, 30_000, { ttl: 600 });
    expect(second.total_amount).toBe(first.total_amount);
    const late = await recordPayment(t.deps, report(t, m, { amount: first.total_amount, paidAt: paidForFirst }));
    expect(late).toMatchObject({
      outcome: 'unmatched',
      reason: 'paid_before_creation',
      transaction: { id: second.id },
    });
    const skewed = await recordPayment(
      t.deps,
      report(t, m, { amount: second.total_amount, paidAt: second.created_at - 119_000 }),
    );
    expect(skewed).toMatchObject({ outcome: 'matched', transaction: { id: second.id } });
  });
});

describe('property: random interleavings of creates, expiries and reports', () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext({
      UNIQUE_CODE_MIN: '1',
      UNIQUE_CODE_MAX: '3',
      RESERVATION_GRACE_SECONDS: '120',
      MATCH_CLOCK_SKEW_SECONDS: '30',
    });
  });
  afterAll(async () => t.close());

  type Cmd =
    | { k: 'create'; base: number; ttl: number }
    | { k: 'advance'; s: number }
    | { k: 'report'; keys: number[]; pick: number; offset: number; named: boolean };

  const cmd: fc.Arbitrary<Cmd> = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        k: fc.constant('create' as const),
        base: fc.constantFrom(10_000, 20_000),
        ttl: fc.constantFrom(60, 120),
      }),
    },
    { weight: 2, arbitrary: fc.record({ k: fc.constant('advance' as const), s: fc.integer({ min: 1, max: 150 }) }) },
    {
      weight: 5,
      arbitrary: fc.record({
        k: fc.constant('report' as const),
        // One key is a report; two are overlapping reports sent at once (possibly the same one twice).
        keys: fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 2 }),
        pick: fc.nat({ max: 20 }),
        offset: fc.integer({ min: -200, max: 20 }),
        named: fc.boolean(),
      }),
    },
  );

  it('never pays a transaction twice, stores every report exactly once, and keeps both links consistent', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cmd, { minLength: 1, maxLength: 25 }), async (cmds) => {
        const merchantId = await newMerchant(t);
        const source = `prop-${merchantId}`;
        const txs: TransactionsTable[] = [];
        const sent = new Map<number, ReportedPayment>();
        const outcomes = new Map<number, RecordPaymentResult['outcome'][]>();

        for (const c of cmds) {
          if (c.k === 'create') {
            try {
              txs.push(await create(t, merchantId, c.base, { ttl: c.ttl }));
            } catch (err) {
              if ((err as { code?: string }).code !== 'unique_code_exhausted') throw err;
            }
          } else if (c.k === 'advance') {
            t.clock.advance(c.s * 1000);
            await expireDue(t.deps);
          } else {
            const reports = c.keys.map((key, i) => {
              let r = sent.get(key);
              if (!r) {
                const target = txs.length > 0 && (c.pick + i) % 5 !== 0 ? txs[(c.pick + i) % txs.length]! : null;
                r = {
                  merchantId,
                  mode: 'live',
                  source,
                  sourcePaymentId: `k${key}`,
                  amount: target?.total_amount ?? 10_000 + ((c.pick * 7) % 5),
                  paidAt: t.clock.now() + c.offset * 1000,
                  trxid: c.named && target ? target.id : null,
                };
                sent.set(key, r);
              }
              return [key, r] as const;
            });
            const results = await Promise.all(reports.map(([, r]) => recordPayment(t.deps, r)));
            for (const [i, res] of results.entries())
              outcomes.set(reports[i]![0], [...(outcomes.get(reports[i]![0]) ?? []), res.outcome]);
          }
        }

        const payments = await t.deps.db
          .selectFrom('payments')
          .selectAll()
          .where('merchant_id', '=', merchantId)
          .execute();
        const transactions = await t.deps.db
          .selectFrom('transactions')
          .selectAll()
          .where('merchant_id', '=', merchantId)
          .execute();
        // Every report stored exactly once, with the first report's content.
        expect(payments.map((p) => p.source_payment_id).sort()).toEqual([...sent.keys()].map((k) => `k${k}`).sort());
        for (const [key, list] of outcomes) {
          expect(
            list.filter((o) => o !== 'duplicate'),
            `key ${key}: ${list.join(',')}`,
          ).toHaveLength(1);
          expect(payments.find((p) => p.source_payment_id === `k${key}`)!.amount).toBe(sent.get(key)!.amount);
        }
        const byId = new Map(transactions.map((tx) => [tx.id, tx]));
        const matched = payments.filter((p) => p.status === 'matched');
        // No transaction is paid twice, and each matched payment and its transaction point at each other.
        expect(new Set(matched.map((p) => p.transaction_id)).size).toBe(matched.length);
        for (const p of matched) {
          const tx = byId.get(p.transaction_id!)!;
          expect(tx.status).toBe('paid');
          expect(tx.payment_id).toBe(p.id);
          expect(tx.total_amount).toBe(p.amount);
          expect(p.reason).toBeNull();
        }
        for (const p of payments.filter((x) => x.status === 'unmatched')) {
          expect(p.transaction_id).toBeNull();
          expect(p.reason).not.toBeNull();
        }
        for (const tx of transactions) {
          if (tx.status === 'paid') expect(matched.some((p) => p.id === tx.payment_id)).toBe(true);
          else expect(tx.payment_id).toBeNull();
        }
        const paidEvents = await t.deps.db
          .selectFrom('events')
          .select('transaction_id')
          .where('merchant_id', '=', merchantId)
          .where('type', '=', 'transaction.paid')
          .execute();
        expect(paidEvents.length).toBe(matched.length);
      }),
      { numRuns: 30 },
    );
  });
});
