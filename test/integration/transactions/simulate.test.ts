import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { expireDue } from '../../../src/services/transactions/expire-due.js';
import { createTestApp, seedMerchant, type Seeded, type TestApp } from '../../helpers/context.js';
import { amountsFrom, create, SIMULATE } from '../../helpers/api.js';
import { expectError } from '../../helpers/http-assertions.js';

interface Tx {
  trxid: string;
  status: string;
  amount: number;
  unique_code: number;
  total_amount: number;
  paid_at: string | null;
  paid_late: boolean;
  payment: null | Record<string, unknown>;
  [k: string]: unknown;
}

let t: TestApp;
let other: Seeded;
// This file's amounts start above the other files' (50,000 + n * 1000).
const amounts = amountsFrom(50_000);

beforeAll(async () => {
  t = await createTestApp();
  other = await seedMerchant(t.deps, 1, 'Other Merchant');
});
afterAll(async () => t.close());

function simulate(
  trxid: string,
  options: { method?: 'GET' | 'POST'; key?: string; amount?: string; prefix?: string } = {},
): Promise<LightMyRequestResponse> {
  const query = new URLSearchParams({ trxid, ...(options.amount === undefined ? {} : { amount: options.amount }) });
  return t.app.inject({
    method: options.method ?? 'POST',
    url: `${options.prefix ?? ''}${SIMULATE}?${query}`,
    headers: { 'x-api-key': options.key ?? t.testKey },
  });
}

async function stored(trxid: string) {
  return t.deps.db.selectFrom('transactions').selectAll().where('id', '=', trxid).executeTakeFirstOrThrow();
}

async function paymentsOf(trxid: string) {
  // Matched payments name the transaction; unmatched simulator payments carry it in their source id.
  return t.deps.db
    .selectFrom('payments')
    .selectAll()
    .where((eb) => eb.or([eb('transaction_id', '=', trxid), eb('source_payment_id', 'like', `${trxid}%`)]))
    .orderBy('received_at')
    .execute();
}

async function readStatus(trxid: string, key: string = t.testKey): Promise<Tx> {
  const res = await t.app.inject({ url: `/api/payment-gateway/cstatus?trxid=${trxid}`, headers: { 'x-api-key': key } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as Tx;
}

describe('simulate', () => {
  it.each(['POST', 'GET'] as const)('%s pays a pending transaction through record-payment', async (method) => {
    const tx = await create<Tx>(t.app, t.testKey, {}, amounts);
    t.clock.advance(2_000);
    const paidAt = new Date(t.clock.ms).toISOString();
    const res = await simulate(tx.trxid, { method });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body.success).toBe(true);
    expect(body.data).toMatchObject({
      trxid: tx.trxid,
      status: 'paid',
      amount: tx.amount,
      total_amount: tx.total_amount,
      paid_at: paidAt,
      paid_late: false,
      payment: {
        source: 'simulator',
        amount: tx.total_amount,
        paid_at: paidAt,
        issuer: 'SIMULATOR',
        payer_name: 'Sandbox Payer',
        reference: `SIM-${tx.trxid.slice(4, 16)}`,
      },
    });

    const row = await stored(tx.trxid);
    expect(row.status).toBe('paid');
    expect(row.paid_at).toBe(t.clock.ms);
    expect(row.paid_late).toBe(0);
    const payments = await paymentsOf(tx.trxid);
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({
      id: row.payment_id,
      source: 'simulator',
      source_payment_id: tx.trxid,
      status: 'matched',
      transaction_id: tx.trxid,
      amount: tx.total_amount,
      merchant_id: t.merchant.id,
      mode: 'test',
    });
    expect((await readStatus(tx.trxid)).status).toBe('paid');
  });

  it('POST accepts the trxid in a JSON body or a form body', async () => {
    const a = await create<Tx>(t.app, t.testKey, {}, amounts);
    const json = await t.app.inject({
      method: 'POST',
      url: SIMULATE,
      headers: { 'x-api-key': t.testKey, 'content-type': 'application/json' },
      payload: JSON.stringify({ trxid: a.trxid }),
    });
    expect(json.statusCode, json.body).toBe(200);
    expect(json.json().data.status).toBe('paid');

    const b = await create<Tx>(t.app, t.testKey, {}, amounts);
    const form = await t.app.inject({
      method: 'POST',
      url: SIMULATE,
      headers: { 'x-api-key': t.testKey, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `trxid=${b.trxid}`,
    });
    expect(form.statusCode, form.body).toBe(200);
    expect(form.json().data.status).toBe('paid');
  });

  it('answers under /api/api too', async () => {
    const tx = await create<Tx>(t.app, t.testKey, {}, amounts);
    const res = await simulate(tx.trxid, { prefix: '/api' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.status).toBe('paid');
  });

  it('a live key gets 403 test_mode_only and nothing is paid', async () => {
    const live = await create<Tx>(t.app, t.liveKey, {}, amounts);
    expectError(await simulate(live.trxid, { key: t.liveKey }), 403, 'test_mode_only');
    expectError(await simulate(live.trxid, { key: t.liveKey, method: 'GET' }), 403, 'test_mode_only');
    expect((await stored(live.trxid)).status).toBe('pending');
    expect(await paymentsOf(live.trxid)).toHaveLength(0);
  });

  it('paying a paid transaction is 409 transaction_already_paid, with no second payment', async () => {
    const tx = await create<Tx>(t.app, t.testKey, {}, amounts);
    expect((await simulate(tx.trxid)).statusCode).toBe(200);
    const firstPaidAt = (await stored(tx.trxid)).paid_at;
    t.clock.advance(1_000);
    expectError(await simulate(tx.trxid), 409, 'transaction_already_paid', 'trxid');
    expectError(await simulate(tx.trxid, { method: 'GET' }), 409, 'transaction_already_paid', 'trxid');
    expect(await paymentsOf(tx.trxid)).toHaveLength(1);
    expect((await stored(tx.trxid)).paid_at).toBe(firstPaidAt);
  });

  it('a payment after expiry still pays the transaction, with paid_late', async () => {
    const tx = await create<Tx>(t.app, t.testKey, { expires_in: '60' }, amounts);
    t.clock.advance(61_000);
    expect((await readStatus(tx.trxid)).status).toBe('expired');
    const res = await simulate(tx.trxid);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'paid', paid_late: true });
    expect((await stored(tx.trxid)).paid_late).toBe(1);
    expect(await readStatus(tx.trxid)).toMatchObject({ status: 'paid', paid_late: true });
  });

  it('a payment after the sweeper expired the row still pays it, late', async () => {
    const tx = await create<Tx>(t.app, t.testKey, { expires_in: '60' }, amounts);
    t.clock.advance(60_000);
    await expireDue(t.deps);
    expect((await stored(tx.trxid)).status).toBe('expired');
    const res = await simulate(tx.trxid);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'paid', paid_late: true });
    const row = await stored(tx.trxid);
    expect(row.status).toBe('paid');
    expect(row.paid_late).toBe(1);
  });

  it('a payment just before expiry is on time', async () => {
    const tx = await create<Tx>(t.app, t.testKey, { expires_in: '60' }, amounts);
    t.clock.advance(59_999);
    const res = await simulate(tx.trxid);
    expect(res.json().data).toMatchObject({ status: 'paid', paid_late: false });
  });

  it('a different amount is stored as an unmatched payment and the transaction stays pending', async () => {
    const tx = await create<Tx>(t.app, t.testKey, {}, amounts);
    const wrong = String(tx.total_amount - 1);
    const res = await simulate(tx.trxid, { amount: wrong });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ trxid: tx.trxid, status: 'pending', paid_at: null, payment: null });

    const row = await stored(tx.trxid);
    expect(row.status).toBe('pending');
    expect(row.payment_id).toBeNull();
    const unmatched = await t.deps.db
      .selectFrom('payments')
      .selectAll()
      .where('source', '=', 'simulator')
      .where('amount', '=', Number(wrong))
      .where('merchant_id', '=', t.merchant.id)
      .execute();
    expect(unmatched).toHaveLength(1);
    expect(unmatched[0]).toMatchObject({
      status: 'unmatched',
      reason: 'amount_mismatch',
      transaction_id: null,
      mode: 'test',
    });

    // Reporting the same wrong amount again is the same payment, not a second one.
    expect((await simulate(tx.trxid, { amount: wrong, method: 'GET' })).statusCode).toBe(200);
    expect(await paymentsOf(tx.trxid)).toHaveLength(1);

    // The right amount afterwards pays it.
    const right = await simulate(tx.trxid, { amount: String(tx.total_amount) });
    expect(right.statusCode, right.body).toBe(200);
    expect(right.json().data.status).toBe('paid');
    const payments = await paymentsOf(tx.trxid);
    expect(payments.map((p) => [p.status, p.reason, p.amount]).sort()).toEqual(
      [
        ['matched', null, tx.total_amount],
        ['unmatched', 'amount_mismatch', Number(wrong)],
      ].sort(),
    );
  });

  it.each([
    ['abc', 'invalid_amount'],
    ['1.5', 'invalid_amount'],
    ['-5', 'invalid_amount'],
    ['0', 'amount_out_of_range'],
    ['10000001', 'amount_out_of_range'],
  ] as const)('amount=%j is 400 %s and records nothing', async (amount, code) => {
    const tx = await create<Tx>(t.app, t.testKey, {}, amounts);
    expectError(await simulate(tx.trxid, { amount }), 400, code, 'amount');
    expect(await paymentsOf(tx.trxid)).toHaveLength(0);
    expect((await stored(tx.trxid)).status).toBe('pending');
  });

  it('two identical simulate calls racing record exactly one payment', async () => {
    for (let round = 0; round < 5; round++) {
      const tx = await create<Tx>(t.app, t.testKey, {}, amounts);
      const results = await Promise.all([
        simulate(tx.trxid),
        simulate(tx.trxid, { method: round % 2 === 0 ? 'POST' : 'GET' }),
      ]);
      const codes = results.map((r) => r.statusCode).sort();
      expect([
        [200, 200],
        [200, 409],
      ]).toContainEqual(codes);
      for (const r of results) {
        if (r.statusCode === 200) expect(r.json().data.status).toBe('paid');
        else expect(r.json().error.code).toBe('transaction_already_paid');
      }
      const payments = await paymentsOf(tx.trxid);
      expect(payments).toHaveLength(1);
      expect(payments[0]!.status).toBe('matched');
      const row = await stored(tx.trxid);
      expect(row.status).toBe('paid');
      expect(row.payment_id).toBe(payments[0]!.id);
    }
  });

  it("another merchant's trxid is 404 transaction_not_found and stays unpaid", async () => {
    const theirs = await create<Tx>(t.app, other.testKey, {}, amounts);
    expectError(await simulate(theirs.trxid), 404, 'transaction_not_found', 'trxid');
    expect((await stored(theirs.trxid)).status).toBe('pending');
    expect(await paymentsOf(theirs.trxid)).toHaveLength(0);
  });

  it('an unknown trxid is 404, a missing one 400, a malformed one 400', async () => {
    expectError(await simulate(`trx_${'Z'.repeat(22)}`), 404, 'transaction_not_found', 'trxid');
    expectError(
      await t.app.inject({ method: 'POST', url: SIMULATE, headers: { 'x-api-key': t.testKey } }),
      400,
      'invalid_parameter',
      'trxid',
    );
    expectError(await simulate('nope'), 400, 'invalid_parameter', 'trxid');
  });

  // 'without a key is 401' moved to route-common.test.ts.
});
