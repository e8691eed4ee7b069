import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { expireDue } from '../../../src/services/transactions/expire-due.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { newEndpointId } from '../../../src/domain/ids.js';

describe('outbox: events and e-mails are written with the change they report', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await t.deps.db
      .insertInto('webhook_endpoints')
      .values({
        id: newEndpointId(),
        merchant_id: t.merchant.id,
        url: 'http://127.0.0.1:9/hook',
        secret: 'whsec_test',
        events: JSON.stringify(['transaction.paid', 'payment.unmatched']),
        status: 'active',
        consecutive_failures: 0,
        created_at: t.clock.now(),
        updated_at: t.clock.now(),
      })
      .execute();
  });
  afterAll(async () => t.close());

  const create = async (query: string) =>
    (await t.app.inject({ url: `/api/payment-gateway/cqris?${query}`, headers: { 'x-api-key': t.testKey } })).json()
      .data;
  const events = (trxid: string) =>
    t.deps.db.selectFrom('events').selectAll().where('transaction_id', '=', trxid).execute();

  it('paid: one transaction.paid event carrying the transaction as cstatus shows it, a delivery and a receipt', async () => {
    const tx = await create('amount=12000&email=payer@example.co.id');
    const invoice = await t.deps.db.selectFrom('emails').selectAll().where('transaction_id', '=', tx.trxid).execute();
    expect(invoice.map((e) => e.kind)).toEqual(['invoice']);

    await t.app.inject({
      method: 'POST',
      url: `/api/payment-gateway/simulate?trxid=${tx.trxid}`,
      headers: { 'x-api-key': t.testKey },
    });
    const [event, ...rest] = await events(tx.trxid);
    expect(rest).toHaveLength(0);
    expect(event!.type).toBe('transaction.paid');
    const body = JSON.parse(event!.payload);
    const status = (
      await t.app.inject({ url: `/api/payment-gateway/cstatus?trxid=${tx.trxid}`, headers: { 'x-api-key': t.testKey } })
    ).json().data;
    expect(body).toMatchObject({ id: event!.id, type: 'transaction.paid' });
    expect(body.data).toEqual(status);
    const deliveries = await t.deps.db.selectFrom('deliveries').selectAll().where('event_id', '=', event!.id).execute();
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.status).toBe('pending');
    const mails = await t.deps.db
      .selectFrom('emails')
      .select('kind')
      .where('transaction_id', '=', tx.trxid)
      .orderBy('kind')
      .execute();
    expect(mails.map((m) => m.kind)).toEqual(['invoice', 'receipt']);
  });

  it('a duplicate report writes no second event', async () => {
    const tx = await create('amount=13000');
    const report = {
      merchantId: t.merchant.id,
      mode: 'test' as const,
      source: 'outbox-test',
      sourcePaymentId: `dup-${tx.trxid}`,
      amount: tx.total_amount,
      paidAt: t.clock.now(),
    };
    await recordPayment(t.deps, report);
    await recordPayment(t.deps, report);
    expect(await events(tx.trxid)).toHaveLength(1);
  });

  it('unmatched: a payment.unmatched event with the payment', async () => {
    const result = await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'test',
      source: 'outbox-test',
      sourcePaymentId: 'nobody-expected-this',
      amount: 4242,
      paidAt: t.clock.now(),
    });
    expect(result.outcome).toBe('unmatched');
    const rows = await t.deps.db.selectFrom('events').selectAll().where('payment_id', '=', result.payment.id).execute();
    expect(rows.map((r) => r.type)).toEqual(['payment.unmatched']);
    expect(JSON.parse(rows[0]!.payload).data).toMatchObject({
      id: result.payment.id,
      amount: 4242,
      status: 'unmatched',
      reason: 'no_matching_transaction',
    });
  });

  it('expired: exactly one transaction.expired event however often the sweeper runs, and no delivery to an endpoint that did not subscribe', async () => {
    const tx = await create('amount=14000');
    t.clock.advance(16 * 60 * 1000);
    await Promise.all([expireDue(t.deps), expireDue(t.deps)]);
    await expireDue(t.deps);
    const rows = await events(tx.trxid);
    expect(rows.map((r) => r.type)).toEqual(['transaction.expired']);
    expect(JSON.parse(rows[0]!.payload).data.status).toBe('expired');
    expect(
      await t.deps.db.selectFrom('deliveries').selectAll().where('event_id', '=', rows[0]!.id).execute(),
    ).toHaveLength(0);
  });
});
