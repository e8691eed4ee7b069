import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { settlePayment } from '../../../src/services/payments/settle-payment.js';
import { insertPaymentUnlessDuplicate } from '../../../src/storage/queries/payments.js';
import { readTransaction } from '../../../src/storage/queries/transactions.js';
import { addWebhookEndpoint } from '../../../src/services/webhooks/add-webhook-endpoint.js';
import { createTestApp, onPostgres, seedMerchant, type TestApp } from '../../helpers/context.js';
import { CANCEL, CQRIS, create, CSTATUS } from '../../helpers/api.js';
import { expectCommonHeaders, expectError } from '../../helpers/http-assertions.js';

interface Tx {
  trxid: string;
  status: string;
  total_amount: number;
  expires_at: string;
  paid_late: boolean;
  cancelled_at: string | null;
  paid_at: string | null;
  [k: string]: unknown;
}

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function app(env: Record<string, string> = {}): Promise<TestApp> {
  t = await createTestApp({ WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8', ...env });
  return t;
}

function cancel(
  a: TestApp,
  key: string,
  trxid: string,
  how: 'get' | 'post-json' | 'post-form' | 'post-query' = 'get',
  prefix = '',
) {
  const headers = { 'x-api-key': key };
  if (how === 'get') return a.app.inject({ url: `${prefix}${CANCEL}?trxid=${trxid}`, headers });
  if (how === 'post-query') return a.app.inject({ method: 'POST', url: `${prefix}${CANCEL}?trxid=${trxid}`, headers });
  if (how === 'post-json')
    return a.app.inject({ method: 'POST', url: `${prefix}${CANCEL}`, headers, payload: { trxid } });
  return a.app.inject({
    method: 'POST',
    url: `${prefix}${CANCEL}`,
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `trxid=${trxid}`,
  });
}

async function status(a: TestApp, key: string, trxid: string): Promise<Tx> {
  const res = await a.app.inject({ url: `${CSTATUS}?trxid=${trxid}`, headers: { 'x-api-key': key } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as Tx;
}

async function events(a: TestApp, trxid: string) {
  return a.deps.db.selectFrom('events').selectAll().where('transaction_id', '=', trxid).orderBy('created_at').execute();
}

describe('cancel a pending transaction', () => {
  it('cancels by GET, POST with a JSON body, a form body or the query, and under /api/api', async () => {
    const a = await app();
    for (const [how, prefix] of [
      ['get', ''],
      ['post-json', ''],
      ['post-form', ''],
      ['post-query', ''],
      ['get', '/api'],
    ] as const) {
      const tx = await create<Tx>(a.app, a.liveKey);
      const before = a.clock.now();
      const res = await cancel(a, a.liveKey, tx.trxid, how, prefix);
      expect(res.statusCode, `${how} ${prefix}: ${res.body}`).toBe(200);
      expectCommonHeaders(res);
      const body = res.json() as { success: boolean; data: Tx };
      expect(body.success).toBe(true);
      expect(body.data.trxid).toBe(tx.trxid);
      expect(body.data.status).toBe('cancelled');
      expect(Date.parse(body.data.cancelled_at!)).toBe(before);
      expect(body.data.paid_late).toBe(false);
      expect((await status(a, a.liveKey, tx.trxid)).status).toBe('cancelled');
    }
  });

  it('answers a repeated cancel with the same transaction and writes one event', async () => {
    const a = await app();
    const tx = await create<Tx>(a.app, a.liveKey);
    const first = (await cancel(a, a.liveKey, tx.trxid)).json().data as Tx;
    a.clock.advance(5000);
    const again = await cancel(a, a.liveKey, tx.trxid, 'post-json');
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toEqual(first);
    const rows = await events(a, tx.trxid);
    expect(rows.map((e) => e.type)).toEqual(['transaction.cancelled']);
    const payload = JSON.parse(rows[0]!.payload) as { type: string; data: Tx };
    expect(payload.type).toBe('transaction.cancelled');
    expect(payload.data).toMatchObject({ trxid: tx.trxid, status: 'cancelled', cancelled_at: first.cancelled_at });
  });

  it('concurrent cancels of one transaction all answer 200 with one cancel time and one event', async () => {
    const a = await app();
    const tx = await create<Tx>(a.app, a.liveKey);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => cancel(a, a.liveKey, tx.trxid, i % 2 ? 'get' : 'post-json')),
    );
    for (const r of answers) expect(r.statusCode, r.body).toBe(200);
    expect(new Set(answers.map((r) => (r.json().data as Tx).cancelled_at)).size).toBe(1);
    expect((await events(a, tx.trxid)).length).toBe(1);
  });

  it('refuses a paid transaction with 409 transaction_already_paid and changes nothing', async () => {
    const a = await app();
    const tx = await create<Tx>(a.app, a.testKey);
    const paid = await a.app.inject({
      method: 'POST',
      url: `/api/payment-gateway/simulate?trxid=${tx.trxid}`,
      headers: { 'x-api-key': a.testKey },
    });
    expect(paid.statusCode, paid.body).toBe(200);
    expectError(await cancel(a, a.testKey, tx.trxid), 409, 'transaction_already_paid', 'trxid');
    const after = await status(a, a.testKey, tx.trxid);
    expect(after.status).toBe('paid');
    expect(after.cancelled_at).toBeNull();
    expect((await events(a, tx.trxid)).map((e) => e.type)).toEqual(['transaction.paid']);
  });

  it('refuses an expired transaction with 409 transaction_expired, whether or not the sweeper has run', async () => {
    const a = await app();
    const tx = await create<Tx>(a.app, a.liveKey);
    a.clock.advance(Date.parse(tx.expires_at) - a.clock.now());
    expectError(await cancel(a, a.liveKey, tx.trxid), 409, 'transaction_expired', 'trxid');
    const row = await a.deps.db
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', tx.trxid)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('pending');
    expect(row.cancelled_at).toBeNull();
    expect(await events(a, tx.trxid)).toEqual([]);
  });

  it("answers another merchant's, an unknown and the other mode's transaction with 404", async () => {
    const a = await app();
    const other = await seedMerchant(a.deps, 1, 'Other Merchant');
    const mine = await create<Tx>(a.app, a.liveKey);
    expectError(await cancel(a, other.liveKey, mine.trxid), 404, 'transaction_not_found', 'trxid');
    // A test key cannot cancel a live transaction, as it cannot read one.
    expectError(await cancel(a, a.testKey, mine.trxid), 404, 'transaction_not_found', 'trxid');
    expectError(await cancel(a, a.liveKey, 'trx_doesnotexist000000000000'), 404, 'transaction_not_found', 'trxid');
    expect((await status(a, a.liveKey, mine.trxid)).status).toBe('pending');
  });

  it('validates its parameters and key like cstatus', async () => {
    const a = await app();
    expectError(
      await a.app.inject({ url: CANCEL, headers: { 'x-api-key': a.liveKey } }),
      400,
      'invalid_parameter',
      'trxid',
    );
    expectError(
      await a.app.inject({ url: `${CANCEL}?trxid=nope`, headers: { 'x-api-key': a.liveKey } }),
      400,
      'invalid_parameter',
      'trxid',
    );
    expectError(
      await a.app.inject({ url: `${CANCEL}?trxid=trx_abc&trxid=trx_def`, headers: { 'x-api-key': a.liveKey } }),
      400,
      'invalid_parameter',
    );
    expectError(
      await a.app.inject({ url: `${CANCEL}?trxid=trx_abc`, headers: { 'x-api-key': 'sk_live_wrong' } }),
      401,
      'invalid_api_key',
    );
    expectError(
      await a.app.inject({
        method: 'POST',
        url: CANCEL,
        headers: { 'x-api-key': a.liveKey, 'content-type': 'application/json' },
        payload: '[1]',
      }),
      400,
      'invalid_body',
    );
    for (const method of ['PUT', 'DELETE', 'PATCH', 'HEAD'] as const) {
      const res = await a.app.inject({ method, url: `${CANCEL}?trxid=trx_abc`, headers: { 'x-api-key': a.liveKey } });
      expect(res.statusCode, method).toBe(405);
    }
  });

  it('is in the OpenAPI document as GET and POST', async () => {
    const a = await app();
    const doc = (await a.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(doc.paths['/api/payment-gateway/cancel'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(doc.paths['/api/api/payment-gateway/cancel']).toBeUndefined();
  });

  it('drops the queued invoice and queues a webhook delivery for subscribed endpoints', async () => {
    const a = await app();
    await addWebhookEndpoint(a.deps, {
      merchantId: a.merchant.id,
      url: 'http://127.0.0.1:9/hook',
      events: ['transaction.cancelled'],
    });
    const tx = await create<Tx>(a.app, a.liveKey, { email: 'payer@example.co.id' });
    expect((await cancel(a, a.liveKey, tx.trxid)).statusCode).toBe(200);
    const mails = await a.deps.db.selectFrom('emails').selectAll().where('transaction_id', '=', tx.trxid).execute();
    expect(mails.map((m) => [m.kind, m.status, m.last_error])).toEqual([
      ['invoice', 'skipped', 'transaction_cancelled'],
    ]);
    const [event] = await events(a, tx.trxid);
    const deliveries = await a.deps.db.selectFrom('deliveries').selectAll().where('event_id', '=', event!.id).execute();
    expect(deliveries.length).toBe(1);
    expect(deliveries[0]!.status).toBe('pending');
  });

  it('commits the cancel and its outbox row together: if the event cannot be written, the transaction stays pending', async () => {
    const a = await app();
    const tx = await create<Tx>(a.app, a.liveKey);
    // A real failure inside the database: a trigger refuses the cancel's event row.
    if (onPostgres) {
      await sql`create or replace function qg_refuse_event() returns trigger language plpgsql as $$ begin raise exception 'refused by test'; end $$`.execute(
        a.deps.db,
      );
      await sql`create trigger qg_refuse before insert on events for each row when (new.type = 'transaction.cancelled') execute function qg_refuse_event()`.execute(
        a.deps.db,
      );
    } else {
      await sql`create trigger qg_refuse before insert on events when new.type = 'transaction.cancelled' begin select raise(abort, 'refused by test'); end`.execute(
        a.deps.db,
      );
    }
    try {
      const res = await cancel(a, a.liveKey, tx.trxid);
      expectError(res, 500, 'internal_error');
      const after = await status(a, a.liveKey, tx.trxid);
      expect(after.status).toBe('pending');
      expect(after.cancelled_at).toBeNull();
      expect(await events(a, tx.trxid)).toEqual([]);
    } finally {
      // The test schemas are reused by later runs (test/helpers): nothing of this test may stay behind.
      await sql`drop trigger qg_refuse${sql.raw(onPostgres ? ' on events' : '')}`.execute(a.deps.db);
      if (onPostgres) await sql`drop function qg_refuse_event()`.execute(a.deps.db);
    }
    expect((await cancel(a, a.liveKey, tx.trxid)).statusCode).toBe(200);
  });
});

describe('a cancelled static-QRIS code can still be paid', () => {
  it('keeps the total reserved for the grace period: a new transaction cannot take it until then', async () => {
    // One possible code, so each amount has exactly one total.
    const a = await app({ UNIQUE_CODE_MIN: '7', UNIQUE_CODE_MAX: '7', RESERVATION_GRACE_SECONDS: '600' });
    const tx = await create<Tx>(a.app, a.liveKey, { amount: '50000' });
    expect(tx.total_amount).toBe(50_007);
    expect((await cancel(a, a.liveKey, tx.trxid)).statusCode).toBe(200);
    const blocked = await a.app.inject({ url: `${CQRIS}?amount=50000`, headers: { 'x-api-key': a.liveKey } });
    expectError(blocked, 503, 'unique_code_exhausted');
    a.clock.advance(599_000);
    expectError(
      await a.app.inject({ url: `${CQRIS}?amount=50000`, headers: { 'x-api-key': a.liveKey } }),
      503,
      'unique_code_exhausted',
    );
    a.clock.advance(2_000);
    const next = await create<Tx>(a.app, a.liveKey, { amount: '50000' });
    expect(next.total_amount).toBe(50_007);
    expect(next.trxid).not.toBe(tx.trxid);
  });

  it('the grace runs from the cancel, not from the expiry the code had', async () => {
    const a = await app({
      UNIQUE_CODE_MIN: '3',
      UNIQUE_CODE_MAX: '3',
      RESERVATION_GRACE_SECONDS: '60',
      TRANSACTION_TTL_SECONDS: '3600',
    });
    const tx = await create<Tx>(a.app, a.liveKey, { amount: '60000' });
    expect((await cancel(a, a.liveKey, tx.trxid)).statusCode).toBe(200);
    a.clock.advance(61_000);
    // Long before the hour the code would have lived.
    expect((await create<Tx>(a.app, a.liveKey, { amount: '60000' })).total_amount).toBe(60_003);
  });

  it('matches money that arrives by amount after the cancel and marks the transaction paid late, cancelled_at kept', async () => {
    const a = await app();
    const tx = await create<Tx>(a.app, a.liveKey);
    const cancelled = (await cancel(a, a.liveKey, tx.trxid)).json().data as Tx;
    a.clock.advance(30_000);
    const result = await recordPayment(a.deps, {
      merchantId: a.merchant.id,
      mode: 'live',
      source: 'feed-test',
      sourcePaymentId: `late-${tx.trxid}`,
      amount: tx.total_amount,
      paidAt: a.clock.now() - 1000,
    });
    expect(result.outcome).toBe('matched');
    const after = await status(a, a.liveKey, tx.trxid);
    expect(after.status).toBe('paid');
    expect(after.paid_late).toBe(true);
    expect(after.cancelled_at).toBe(cancelled.cancelled_at);
    expect(after.payment).toMatchObject({ source: 'feed-test', amount: tx.total_amount });
    const types = (await events(a, tx.trxid)).map((e) => e.type);
    expect(types).toEqual(['transaction.cancelled', 'transaction.paid']);
    // Cancelling it now is refused: the money is the merchant's to refund.
    expectError(await cancel(a, a.liveKey, tx.trxid), 409, 'transaction_already_paid');
  });

  it('a sandbox payment of a cancelled transaction (by its id) is paid late too', async () => {
    const a = await app();
    const tx = await create<Tx>(a.app, a.testKey);
    expect((await cancel(a, a.testKey, tx.trxid)).statusCode).toBe(200);
    const paid = await a.app.inject({
      method: 'POST',
      url: `/api/payment-gateway/simulate?trxid=${tx.trxid}`,
      headers: { 'x-api-key': a.testKey },
    });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().data).toMatchObject({ status: 'paid', paid_late: true });
    expect(paid.json().data.cancelled_at).not.toBeNull();
  });

  it('money after the grace period is not matched to the cancelled transaction', async () => {
    const a = await app({ RESERVATION_GRACE_SECONDS: '60' });
    const tx = await create<Tx>(a.app, a.liveKey);
    expect((await cancel(a, a.liveKey, tx.trxid)).statusCode).toBe(200);
    a.clock.advance(61_000);
    const result = await recordPayment(a.deps, {
      merchantId: a.merchant.id,
      mode: 'live',
      source: 'feed-test',
      sourcePaymentId: `too-late-${tx.trxid}`,
      amount: tx.total_amount,
      paidAt: a.clock.now(),
    });
    expect(result.outcome).toBe('unmatched');
    expect((await status(a, a.liveKey, tx.trxid)).status).toBe('cancelled');
  });

  it('a payment settled on a read taken before a cancel committed is paid late, with cancelled_at kept, in the row and its event', async () => {
    // The interleaving PostgreSQL allows: the payment's transaction reads the row while it is pending,
    // a cancel commits, and only then does the payment mark the row paid.
    const a = await app();
    const tx = await create<Tx>(a.app, a.liveKey);
    const stale = await readTransaction(a.deps.db, tx.trxid);
    expect(stale!.status).toBe('pending');
    expect((await cancel(a, a.liveKey, tx.trxid)).statusCode).toBe(200);
    const now = a.clock.now();
    const payment = {
      id: 'pay_stale_read_test',
      merchant_id: a.merchant.id,
      mode: 'live' as const,
      source: 'race',
      source_payment_id: `stale-${tx.trxid}`,
      amount: tx.total_amount,
      paid_at: now,
      received_at: now,
      reference: null,
      issuer: null,
      payer_name: null,
      status: 'unmatched' as const,
      reason: null,
      transaction_id: null,
      compared_transaction_id: null,
      raw: null,
    };
    const settled = await a.deps.db.runInTransaction(async (trx) => {
      await insertPaymentUnlessDuplicate(trx, payment);
      return settlePayment(trx, a.deps, payment, stale!, false, now);
    });
    expect(settled!.transaction).toMatchObject({ status: 'paid', paid_late: 1 });
    expect(settled!.transaction.cancelled_at).not.toBeNull();
    const after = await status(a, a.liveKey, tx.trxid);
    expect(after).toMatchObject({ status: 'paid', paid_late: true });
    expect(after.cancelled_at).not.toBeNull();
    const paidEvent = (await events(a, tx.trxid)).find((e) => e.type === 'transaction.paid')!;
    expect(JSON.parse(paidEvent.payload).data).toMatchObject({
      status: 'paid',
      paid_late: true,
      cancelled_at: after.cancelled_at,
    });
  });

  it('a cancel racing a payment ends one consistent way for every transaction', async () => {
    const a = await app();
    const txs = await Promise.all(Array.from({ length: 20 }, () => create<Tx>(a.app, a.liveKey)));
    const outcomes = await Promise.all(
      txs.map(async (tx, i) => {
        const pay = () =>
          recordPayment(a.deps, {
            merchantId: a.merchant.id,
            mode: 'live',
            source: 'race',
            sourcePaymentId: `race-${tx.trxid}`,
            amount: tx.total_amount,
            paidAt: a.clock.now(),
          });
        const [res, payment] =
          i % 2
            ? await Promise.all([cancel(a, a.liveKey, tx.trxid), pay()])
            : await Promise.all([pay(), cancel(a, a.liveKey, tx.trxid)]).then(([p, r]) => [r, p] as const);
        return { tx, res, payment };
      }),
    );
    for (const { tx, res, payment } of outcomes) {
      expect(payment.outcome, tx.trxid).toBe('matched');
      const after = await status(a, a.liveKey, tx.trxid);
      expect(after.status).toBe('paid');
      const types = (await events(a, tx.trxid)).map((e) => e.type);
      if (res.statusCode === 200) {
        // Cancelled first: the payment that followed was late, and the merchant heard of both.
        expect(after.paid_late).toBe(true);
        expect(after.cancelled_at).not.toBeNull();
        // Both told; their order in the list is not the commit order (same test-clock time, ids break the tie).
        expect([...types].sort()).toEqual(['transaction.cancelled', 'transaction.paid']);
      } else {
        expectError(res, 409, 'transaction_already_paid');
        expect(after.paid_late).toBe(false);
        expect(after.cancelled_at).toBeNull();
        expect(types).toEqual(['transaction.paid']);
      }
    }
  });
});
