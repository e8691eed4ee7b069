// issue 36, section 2: one payment reported by two sources (a phone-like signed webhook and a Moota
// mutation) minutes apart is one payment; a second payment reported by the same source, or a report dated
// outside CROSS_SOURCE_WINDOW_SECONDS, is still a double payment to refund.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPayload } from '../../../src/payment-sources/webhook/signature.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { cli, createLive, listen, status, wib } from '../../helpers/payment-sources.js';

let t: TestApp;
let base: string;
let phone: { id: string; secret: string; url: string };
let moota: { id: string; url: string };
const mootaSecret = 'moota-secret-for-tests';
let amount = 71_000;
let n = 0;

beforeAll(async () => {
  t = await createTestApp();
  base = await listen(t);
  phone = (await cli(t, ['source', 'add', '--merchant', t.merchant.id, '--type', 'webhook', '--json']))
    .json as typeof phone;
  moota = (
    await cli(t, ['source', 'add', '--merchant', t.merchant.id, '--type', 'moota', '--secret', mootaSecret, '--json'])
  ).json as typeof moota;
});
afterAll(async () => t.close());

const MINUTE = 60_000;

/** The phone's report of a payment (a notification forwarded as a signed webhook). */
async function phoneReports(total: number, at = t.clock.now()): Promise<Record<string, any>> {
  const body = JSON.stringify({
    id: `gopay-${++n}`,
    amount: total,
    paid_at: new Date(at).toISOString(),
    issuer: 'GoPay',
  });
  const res = await fetch(`${base}${phone.url}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-signature': signPayload(phone.secret, body, Math.floor(t.clock.now() / 1000)),
    },
    body,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Record<string, any> }).data;
}

/** Moota's report of a credit mutation. */
async function mootaReports(total: number, at = t.clock.now(), id = `moota-${++n}`): Promise<Record<string, any>> {
  const body = JSON.stringify([
    {
      mutation_id: id,
      type: 'CR',
      amount: total,
      date: wib(at),
      bank_type: 'qris',
      description: 'QRIS',
      account_number: '1',
    },
  ]);
  const res = await fetch(`${base}${moota.url}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      Signature: createHmac('sha256', mootaSecret).update(body).digest('hex'),
    },
    body,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Array<Record<string, any>> }).data[0]!;
}

/** The double payments of a transaction, as the refund list sees them. */
async function doublePayments(trxid: string): Promise<Array<{ source: string }>> {
  return t.deps.db
    .selectFrom('payments')
    .select('source')
    .where('compared_transaction_id', '=', trxid)
    .where('status', '=', 'unmatched')
    .where('reason', '=', 'transaction_already_paid')
    .execute();
}

describe('one payment reported by two sources', () => {
  it('the bank’s report of a payment the phone reported is a corroboration, not a double payment', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    const paid = await phoneReports(tx.total_amount);
    expect(paid).toMatchObject({ status: 'matched', trxid: tx.trxid });

    const second = await mootaReports(tx.total_amount, t.clock.now() + 3 * MINUTE);
    expect(second).toMatchObject({ status: 'duplicate', reason: 'reported_by_another_source', trxid: tx.trxid });
    expect(await doublePayments(tx.trxid)).toEqual([]);
    const row = await t.deps.db
      .selectFrom('payments')
      .selectAll()
      .where('id', '=', second.payment_id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      source: moota.id,
      status: 'matched',
      transaction_id: tx.trxid,
      reason: 'reported_by_another_source',
    });
    // The transaction was paid once, by the phone's report, and received its total once.
    expect(await status(base, t.liveKey, tx.trxid)).toMatchObject({ status: 'paid', payment: { id: paid.payment_id } });
    const txRow = await t.deps.db
      .selectFrom('transactions')
      .select(['amount_paid', 'payment_id'])
      .where('id', '=', tx.trxid)
      .executeTakeFirstOrThrow();
    expect(txRow).toEqual({ amount_paid: tx.total_amount, payment_id: paid.payment_id });
    // No payment.unmatched event for it.
    const events = await t.deps.db
      .selectFrom('events')
      .select('type')
      .where('payment_id', '=', second.payment_id)
      .execute();
    expect(events).toEqual([]);
  });

  it('the other way round too: the phone’s report after the bank’s', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    expect(await mootaReports(tx.total_amount)).toMatchObject({ status: 'matched', trxid: tx.trxid });
    expect(await phoneReports(tx.total_amount, t.clock.now() - MINUTE)).toMatchObject({
      status: 'duplicate',
      reason: 'reported_by_another_source',
    });
    expect(await doublePayments(tx.trxid)).toEqual([]);
  });

  it('a second mutation of the same amount from the same source is a double payment', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    expect(await mootaReports(tx.total_amount)).toMatchObject({ status: 'matched' });
    expect(await mootaReports(tx.total_amount, t.clock.now() + MINUTE)).toMatchObject({
      status: 'unmatched',
      reason: 'transaction_already_paid',
    });
    expect(await doublePayments(tx.trxid)).toEqual([{ source: moota.id }]);
  });

  it('another source’s report dated outside the window is a double payment', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    expect(await phoneReports(tx.total_amount)).toMatchObject({ status: 'matched' });
    expect(await mootaReports(tx.total_amount, t.clock.now() + 31 * MINUTE)).toMatchObject({
      status: 'unmatched',
      reason: 'transaction_already_paid',
    });
    expect(await doublePayments(tx.trxid)).toEqual([{ source: moota.id }]);
  });

  it('a payer who really paid twice, seen by both sources, is one double payment whatever the order', async () => {
    for (const order of [
      ['phone', 'phone', 'moota', 'moota'],
      ['phone', 'moota', 'moota', 'phone'],
      ['moota', 'phone', 'phone', 'moota'],
    ]) {
      const tx = await createLive(base, t.liveKey, ++amount);
      const outcomes = [];
      for (const [i, who] of order.entries()) {
        const at = t.clock.now() + i * MINUTE;
        const r = who === 'phone' ? await phoneReports(tx.total_amount, at) : await mootaReports(tx.total_amount, at);
        outcomes.push(r.reason ?? r.status);
      }
      expect(await doublePayments(tx.trxid), order.join(',')).toHaveLength(1);
      expect(
        outcomes.filter((o) => o === 'reported_by_another_source'),
        order.join(','),
      ).toHaveLength(2);
    }
  });

  it('two reports of one source at once after another source paid: one corroboration, one double payment', async () => {
    for (let round = 0; round < 5; round++) {
      const tx = await createLive(base, t.liveKey, ++amount);
      await phoneReports(tx.total_amount);
      const results = await Promise.all([mootaReports(tx.total_amount), mootaReports(tx.total_amount)]);
      expect(results.map((r) => r.reason).sort()).toEqual(['reported_by_another_source', 'transaction_already_paid']);
      expect(await doublePayments(tx.trxid)).toHaveLength(1);
    }
  });

  it('a retry of the corroborating post is answered the same, and stores nothing', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    await phoneReports(tx.total_amount);
    const first = await mootaReports(tx.total_amount, t.clock.now(), `moota-retry-${++n}`);
    const count = async () =>
      (await t.deps.db.selectFrom('payments').select('id').where('merchant_id', '=', t.merchant.id).execute()).length;
    const before = await count();
    const again = await mootaReports(tx.total_amount, t.clock.now(), first.id);
    expect(again).toEqual(first);
    expect(await count()).toBe(before);
  });
});
