// The dispatcher against real HTTP receivers on loopback and a real database, with time driven by the
// test clock: each `dispatch()` is one pass of the worker.
import { newServiceState } from '../../../src/services/state.js';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { verifyStandardWebhook, verifyWebhookSignature } from '../../../src/index.js';
import { randomBase62 } from '../../../src/domain/ids.js';
import { MAX_ATTEMPTS, RETRY_WINDOW_MS } from '../../../src/domain/webhook-retry.js';
import type { Deps } from '../../../src/services/deps.js';
import { expireDue } from '../../../src/services/transactions/expire-due.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { resendEvent } from '../../../src/services/webhooks/resend-event.js';
import { addWebhookEndpoint } from '../../../src/services/webhooks/add-webhook-endpoint.js';
import { removeWebhookEndpoint } from '../../../src/services/webhooks/remove-webhook-endpoint.js';
import { newWebhookSecret } from '../../../src/services/webhooks/webhook-secret.js';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import { setMerchantEnabled } from '../../../src/services/merchants/set-merchant-enabled.js';
import { openDatabase } from '../../../src/storage/database.js';
import { dispatchDueDeliveries, startWebhookDispatcher } from '../../../src/workers/webhook-dispatcher.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { Receiver, type ReceivedRequest } from '../../helpers/receiver.js';

let t: TestApp;
let receiver: Receiver;
let endpoint: { id: string; secret: string };
const random = () => 0.5; // no jitter: delays are exactly the nominal schedule

beforeAll(async () => {
  t = await createTestApp({ WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8', WEBHOOK_TIMEOUT_MS: '2000' });
});
afterAll(async () => t.close());

beforeEach(async () => {
  receiver = await Receiver.start();
  // Each test has its own endpoint; the previous one is removed so it receives nothing more.
  endpoint = await addWebhookEndpoint(t.deps, { merchantId: t.merchant.id, url: receiver.url() });
});
afterEach(async () => {
  await removeWebhookEndpoint(t.deps, endpoint.id);
  await receiver.close();
});

const dispatch = (deps: Deps = t.deps, concurrency = 8) => dispatchDueDeliveries(deps, { random, concurrency });

async function createTransaction(amount: number): Promise<{ trxid: string; total_amount: number }> {
  const res = await t.app.inject({
    url: `/api/payment-gateway/cqris?amount=${amount}`,
    headers: { 'x-api-key': t.testKey },
  });
  expect(res.statusCode).toBe(200);
  return res.json().data;
}

async function payNewTransaction(amount = 10_000): Promise<string> {
  const tx = await createTransaction(amount);
  await simulatePayment(t.deps, { merchantId: t.merchant.id, mode: 'test' }, tx.trxid);
  return tx.trxid;
}

const eventsOf = (trxid: string) =>
  t.deps.db.selectFrom('events').selectAll().where('transaction_id', '=', trxid).orderBy('created_at').execute();
const deliveryOf = (eventId: string, endpointId = endpoint.id) =>
  t.deps.db
    .selectFrom('deliveries')
    .selectAll()
    .where('event_id', '=', eventId)
    .where('endpoint_id', '=', endpointId)
    .executeTakeFirstOrThrow();
const attemptsOf = (deliveryId: string) =>
  t.deps.db
    .selectFrom('delivery_attempts')
    .selectAll()
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempted_at')
    .execute();

describe('delivery, retries and signatures', () => {
  it('a receiver that fails twice then succeeds gets three signed attempts and one success', async () => {
    receiver.sequence({ status: 500, body: 'boom' }, { status: 503, body: 'busy' }, { status: 204 });
    const trxid = await payNewTransaction();
    const [event] = await eventsOf(trxid);
    const started = t.clock.now();

    expect((await dispatch()).states).toEqual(['retrying']);
    let delivery = await deliveryOf(event!.id);
    expect(delivery).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_status_code: 500,
      next_attempt_at: started + 30_000,
      locked_until: null,
    });
    expect((await dispatch()).claimed).toBe(0); // not due yet

    t.clock.advance(30_000);
    expect((await dispatch()).states).toEqual(['retrying']);
    delivery = await deliveryOf(event!.id);
    expect(delivery.next_attempt_at).toBe(t.clock.now() + 60_000);

    t.clock.advance(60_000);
    expect((await dispatch()).states).toEqual(['succeeded']);
    expect((await dispatch()).claimed).toBe(0);
    delivery = await deliveryOf(event!.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 3, last_status_code: 204 });

    const attempts = await attemptsOf(delivery.id);
    expect(attempts.map((a) => [a.status_code, a.succeeded, a.response_body])).toEqual([
      [500, 0, 'boom'],
      [503, 0, 'busy'],
      [204, 1, ''],
    ]);
    expect(attempts.map((a) => a.attempted_at)).toEqual([started, started + 30_000, started + 90_000]);
    for (const a of attempts) expect(a.duration_ms).toBeGreaterThanOrEqual(0);

    expect(receiver.requests).toHaveLength(3);
    for (const [i, req] of receiver.requests.entries()) {
      expect(req.method).toBe('POST');
      expect(req.path).toBe('/hook');
      expect(req.body).toBe(event!.payload); // the stored body, byte for byte
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['x-event-id']).toBe(event!.id);
      expect(req.headers['x-event-type']).toBe('transaction.paid');
      expect(req.headers['user-agent']).toMatch(/^qris-gateway\/\d+\.\d+\.\d+/);
      const header = String(req.headers['x-signature']);
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(header.startsWith(`t=${Math.floor(attempts[i]!.attempted_at / 1000)},`)).toBe(true);
      expect(
        verifyWebhookSignature({ payload: req.body, header, secret: endpoint.secret, now: attempts[i]!.attempted_at }),
      ).toBe(true);
      expect(
        verifyWebhookSignature({ payload: req.body, header, secret: 'whsec_wrong', now: attempts[i]!.attempted_at }),
      ).toBe(false);
    }
    const body = JSON.parse(receiver.requests[0]!.body);
    expect(Object.keys(body)).toEqual(['id', 'type', 'created_at', 'data']);
    expect(body).toMatchObject({ id: event!.id, type: 'transaction.paid', data: { trxid, status: 'paid' } });
  });

  it('honours Retry-After in seconds and as an HTTP date', async () => {
    receiver.sequence(
      { status: 429, headers: { 'Retry-After': '120' } },
      { status: 503, headers: { 'Retry-After': new Date(t.clock.now() + 120_000 + 600_000).toUTCString() } },
      { status: 200 },
    );
    const trxid = await payNewTransaction();
    const [event] = await eventsOf(trxid);
    const first = t.clock.now();
    await dispatch();
    expect((await deliveryOf(event!.id)).next_attempt_at).toBe(first + 120_000); // not the 30 s backoff

    t.clock.advance(60_000);
    expect((await dispatch()).claimed).toBe(0);
    expect(receiver.requests).toHaveLength(1);

    t.clock.advance(60_000);
    await dispatch();
    expect(receiver.requests).toHaveLength(2);
    const asked = Math.floor((first + 720_000) / 1000) * 1000; // HTTP dates have whole seconds
    expect((await deliveryOf(event!.id)).next_attempt_at).toBe(asked);

    t.clock.ms = asked - 1000;
    expect((await dispatch()).claimed).toBe(0);
    t.clock.ms = asked;
    expect((await dispatch()).states).toEqual(['succeeded']);
  });

  it('sends the events of one transaction in order: a later one waits while an earlier one retries', async () => {
    receiver.respond = (req) =>
      req.headers['x-event-type'] === 'transaction.expired' &&
      receiver.requests.filter((r) => r.headers['x-event-type'] === 'transaction.expired').length === 1
        ? { status: 500 }
        : { status: 200 };
    const tx = await createTransaction(15_000);
    t.clock.advance(16 * 60_000);
    await expireDue(t.deps);
    t.clock.advance(1000);
    // Paid after expiry: a second event of the same transaction.
    await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'test',
      source: 'order-test',
      sourcePaymentId: tx.trxid,
      amount: tx.total_amount,
      paidAt: t.clock.now(),
      trxid: tx.trxid,
    });
    const [expired, paid] = await eventsOf(tx.trxid);
    expect([expired!.type, paid!.type]).toEqual(['transaction.expired', 'transaction.paid']);
    const other = await payNewTransaction(16_000);

    expect((await dispatch()).claimed).toBe(2); // expired (fails) and the other transaction's event; paid waits
    expect(receiver.requests.map((r) => r.headers['x-event-type'])).toEqual(
      expect.arrayContaining(['transaction.expired', 'transaction.paid']),
    );
    expect(receiver.eventIds()).not.toContain(paid!.id);
    expect(receiver.eventIds()).toContain((await eventsOf(other))[0]!.id);
    expect((await dispatch()).claimed).toBe(0);

    t.clock.advance(30_000);
    expect((await dispatch()).states).toEqual(['succeeded']); // the expired event, at last
    expect((await dispatch()).states).toEqual(['succeeded']); // now the paid one
    const ofTransaction = receiver.eventIds().filter((id) => id === expired!.id || id === paid!.id);
    expect(ofTransaction).toEqual([expired!.id, expired!.id, paid!.id]);
  });

  it('keeps only the first 2 KB of an answer, does not follow redirects, and times out', async () => {
    receiver.sequence(
      { status: 500, body: 'x'.repeat(10_000) },
      { status: 302, headers: { Location: receiver.url('/elsewhere') } },
      { status: 200, hang: true },
    );
    const trxid = await payNewTransaction();
    const [event] = await eventsOf(trxid);
    await dispatch();
    t.clock.advance(30_000);
    await dispatch();
    t.clock.advance(60_000);
    const slow = { ...t.deps, config: { ...t.deps.config, webhookTimeoutMs: 300 } };
    // The receiver hangs for good: the pass ends only because the 300 ms timeout cuts it (the third attempt's error).
    await dispatchDueDeliveries(slow, { random });

    const attempts = await attemptsOf((await deliveryOf(event!.id)).id);
    expect(attempts[0]!.response_body).toBe('x'.repeat(2048));
    expect(attempts[1]!.status_code).toBe(302);
    expect(attempts[1]!.succeeded).toBe(0);
    expect(attempts[2]).toMatchObject({ status_code: null, succeeded: 0, error: 'timed out after 300 ms' });
    expect(attempts[2]!.duration_ms).toBeGreaterThanOrEqual(250);
    expect(receiver.requests.map((r) => r.path)).toEqual(['/hook', '/hook', '/hook']); // never /elsewhere
  });

  it('gives up after about three days, and a resend starts a fresh schedule', async () => {
    receiver.respond = () => ({ status: 500 });
    const trxid = await payNewTransaction();
    const [event] = await eventsOf(trxid);
    const first = t.clock.now();
    let delivery = await deliveryOf(event!.id);
    while (delivery.status === 'pending') {
      t.clock.ms = delivery.next_attempt_at;
      await dispatch();
      delivery = await deliveryOf(event!.id);
    }
    expect(delivery).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS });
    expect(receiver.requests).toHaveLength(MAX_ATTEMPTS);
    const attempts = await attemptsOf(delivery.id);
    expect(attempts.at(-1)!.attempted_at - first).toBe(RETRY_WINDOW_MS);

    receiver.respond = () => ({ status: 200 });
    expect((await resendEvent(t.deps, { eventId: event!.id })).requeued).toBe(1);
    expect(await deliveryOf(event!.id)).toMatchObject({
      status: 'pending',
      attempts: 0,
      next_attempt_at: t.clock.now(),
    });
    expect((await dispatch()).states).toEqual(['succeeded']);
    expect(await attemptsOf(delivery.id)).toHaveLength(MAX_ATTEMPTS + 1);
  });

  it('marks an endpoint failing after 20 failures in a row, keeps retrying it, and heals on success', async () => {
    receiver.respond = () => ({ status: 500 });
    await t.deps.db
      .updateTable('webhook_endpoints')
      .set({ consecutive_failures: 18 })
      .where('id', '=', endpoint.id)
      .execute();
    const endpointRow = () =>
      t.deps.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
    await payNewTransaction();
    await dispatch();
    expect(await endpointRow()).toMatchObject({ status: 'active', consecutive_failures: 19 });
    t.clock.advance(30_000);
    await dispatch();
    expect(await endpointRow()).toMatchObject({ status: 'failing', consecutive_failures: 20 });
    receiver.respond = () => ({ status: 200 });
    t.clock.advance(60_000);
    expect((await dispatch()).states).toEqual(['succeeded']);
    expect(await endpointRow()).toMatchObject({ status: 'active', consecutive_failures: 0 });
  });
});

describe('Standard Webhooks', () => {
  /**
   * What a receiver does with the standardwebhooks package, on the wall clock it reads (Date.now), set to
   * `ms`: the package's own check of the timestamp then judges the attempt as a receiver at that moment
   * would. Returns the parsed body, or the package's error.
   */
  const packageVerifies = (
    secret: string,
    request: { body: string; headers: ReceivedRequest['headers'] },
    ms: number,
  ): unknown => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(ms);
    try {
      return new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
    } catch (err) {
      return err;
    } finally {
      vi.useRealTimers();
    }
  };
  const ours = (secret: string, request: { body: string; headers: ReceivedRequest['headers'] }, ms: number) =>
    verifyStandardWebhook({
      payload: request.body,
      headers: {
        id: request.headers['webhook-id'],
        timestamp: request.headers['webhook-timestamp'],
        signature: request.headers['webhook-signature'],
      },
      secret,
      now: ms,
    });
  const older = (secret: string, request: { body: string; headers: ReceivedRequest['headers'] }, ms: number) =>
    verifyWebhookSignature({
      payload: request.body,
      header: request.headers['x-signature'] as string | undefined,
      secret,
      now: ms,
    });

  /** Every way this request must fail, in both schemes and with the package. */
  function expectRefusals(secret: string, request: ReceivedRequest, ms: number): void {
    const tampered = { ...request, body: request.body.replace('"status":"paid"', '"status":"PAID"') };
    expect(tampered.body).not.toBe(request.body);
    const wrong = newWebhookSecret();
    const oldWrong = `whsec_${randomBase62(32)}`;
    for (const [label, secretUsed, req, at] of [
      ['tampered body', secret, tampered, ms],
      ['wrong secret', wrong, request, ms],
      ['wrong secret of the old form', oldWrong, request, ms],
      ['stale by 301 s', secret, request, ms + 301_000],
      ['from 301 s ahead', secret, request, ms - 301_000],
    ] as const) {
      const error = packageVerifies(secretUsed, req, at);
      expect(error, label).toBeInstanceOf(WebhookVerificationError);
      expect(ours(secretUsed, req, at), label).toBe(false);
      expect(older(secretUsed, req, at), label).toBe(false);
    }
    expect(String(packageVerifies(secret, request, ms + 301_000))).toMatch(/too old/);
    expect(String(packageVerifies(secret, tampered, ms))).toMatch(/No matching signature/);
    // Within the five minutes, either way, it still verifies: the refusals above are the clock's.
    for (const at of [ms + 299_000, ms - 299_000]) {
      expect(packageVerifies(secret, request, at)).toEqual(JSON.parse(request.body));
      expect(older(secret, request, at)).toBe(true);
    }
  }

  it("a paid transaction's delivery, its retry and a resend verify with the standardwebhooks package and with X-Signature", async () => {
    receiver.sequence({ status: 500 }, { status: 204 });
    const trxid = await payNewTransaction();
    const [event] = await eventsOf(trxid);
    expect((await dispatch()).states).toEqual(['retrying']);
    t.clock.advance(30_000);
    expect((await dispatch()).states).toEqual(['succeeded']);
    t.clock.advance(45_000);
    expect((await resendEvent(t.deps, { eventId: event!.id, endpointId: endpoint.id })).requeued).toBe(1);
    expect((await dispatch()).states).toEqual(['succeeded']);

    const attempts = await attemptsOf((await deliveryOf(event!.id)).id);
    expect(attempts).toHaveLength(3);
    expect(receiver.requests).toHaveLength(3);
    const sent = receiver.requests.map((req, i) => ({ req, ms: attempts[i]!.attempted_at }));
    for (const { req, ms } of sent) {
      const seconds = Math.floor(ms / 1000);
      expect(req.body).toBe(event!.payload);
      // The idempotency key is the event's id on every attempt; the time is this attempt's, in both schemes.
      expect(req.headers['webhook-id']).toBe(event!.id);
      expect(req.headers['x-event-id']).toBe(event!.id);
      expect(req.headers['webhook-timestamp']).toBe(String(seconds));
      expect(req.headers['x-signature']).toMatch(new RegExp(`^t=${seconds},v1=[0-9a-f]{64}$`));
      expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);

      expect(packageVerifies(endpoint.secret, req, ms)).toEqual(JSON.parse(event!.payload));
      expect(ours(endpoint.secret, req, ms)).toBe(true);
      expect(older(endpoint.secret, req, ms)).toBe(true);
      expectRefusals(endpoint.secret, req, ms);
    }
    // The retry and the resend carry new timestamps, hence new signatures, under the same id.
    expect(new Set(sent.map(({ req }) => req.headers['webhook-timestamp'])).size).toBe(3);
    expect(new Set(sent.map(({ req }) => req.headers['webhook-signature'])).size).toBe(3);
  });

  it('an endpoint made before new secrets (whsec_ + 32 base62) verifies with the standardwebhooks package as it is', async () => {
    const oldSecret = `whsec_${randomBase62(32)}`;
    await t.deps.db.updateTable('webhook_endpoints').set({ secret: oldSecret }).where('id', '=', endpoint.id).execute();
    const trxid = await payNewTransaction();
    const [event] = await eventsOf(trxid);
    expect((await dispatch()).states).toEqual(['succeeded']);
    const [attempt] = await attemptsOf((await deliveryOf(event!.id)).id);
    const [req] = receiver.requests;
    expect(packageVerifies(oldSecret, req!, attempt!.attempted_at)).toEqual(JSON.parse(event!.payload));
    expect(ours(oldSecret, req!, attempt!.attempted_at)).toBe(true);
    expect(older(oldSecret, req!, attempt!.attempted_at)).toBe(true);
    expectRefusals(oldSecret, req!, attempt!.attempted_at);
  });

  it('a secret changed by hand into one that cannot sign sends nothing and records a failed attempt', async () => {
    await t.deps.db
      .updateTable('webhook_endpoints')
      .set({ secret: 'whsec_not base64!' })
      .where('id', '=', endpoint.id)
      .execute();
    const trxid = await payNewTransaction();
    const [event] = await eventsOf(trxid);
    expect((await dispatch()).states).toEqual(['retrying']);
    expect(receiver.requests).toHaveLength(0);
    expect(receiver.connections).toBe(0);
    const [attempt] = await attemptsOf((await deliveryOf(event!.id)).id);
    expect(attempt).toMatchObject({ succeeded: 0, status_code: null, duration_ms: 0 });
    expect(attempt!.error).toMatch(/^not sent: cannot sign with the endpoint's secret \(.*whsec_.*base64/);
    expect(await deliveryOf(event!.id)).toMatchObject({ status: 'pending', attempts: 1, locked_until: null });
  });
});

describe('endpoint lifecycle', () => {
  it('an endpoint added later gets no older events, unless an event is resent to it', async () => {
    const trxid = await payNewTransaction();
    const [event] = await eventsOf(trxid);
    const late = await Receiver.start();
    const lateEndpoint = await addWebhookEndpoint(t.deps, { merchantId: t.merchant.id, url: late.url() });
    try {
      await dispatch();
      expect(late.requests).toHaveLength(0);
      expect(receiver.eventIds()).toEqual([event!.id]);
      await resendEvent(t.deps, { eventId: event!.id, endpointId: lateEndpoint.id });
      await dispatch();
      expect(late.eventIds()).toEqual([event!.id]);
      expect(
        verifyWebhookSignature({
          payload: late.requests[0]!.body,
          header: String(late.requests[0]!.headers['x-signature']),
          secret: lateEndpoint.secret,
          now: t.clock.now(),
        }),
      ).toBe(true);
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await removeWebhookEndpoint(t.deps, lateEndpoint.id);
      await late.close();
    }
  });

  it('a removed endpoint gets nothing more; its history stays', async () => {
    receiver.respond = () => ({ status: 500 });
    const first = await payNewTransaction();
    await dispatch();
    const removed = await removeWebhookEndpoint(t.deps, endpoint.id);
    expect(removed).toMatchObject({ status: 'disabled', cancelled_deliveries: 1 });
    const [event] = await eventsOf(first);
    expect(await deliveryOf(event!.id)).toMatchObject({ status: 'failed', attempts: 1 });
    expect(await attemptsOf((await deliveryOf(event!.id)).id)).toHaveLength(1);
    const second = await payNewTransaction();
    const [secondEvent] = await eventsOf(second);
    expect(
      await t.deps.db
        .selectFrom('deliveries')
        .selectAll()
        .where('endpoint_id', '=', endpoint.id)
        .where('event_id', '=', secondEvent!.id)
        .execute(),
    ).toEqual([]);
    t.clock.advance(3_600_000);
    await dispatch();
    expect(receiver.requests).toHaveLength(1);
    await expect(resendEvent(t.deps, { eventId: event!.id, endpointId: endpoint.id })).rejects.toMatchObject({
      code: 'invalid_parameter',
    });
  });

  // issue 23, finding 9: the dispatcher delivers nothing for a disabled merchant.
  it("holds a disabled merchant's deliveries, and sends them once an operator enables it again", async () => {
    const operator = {
      userId: 'usr_test',
      email: 'ops@example.test',
      role: 'operator' as const,
      merchantIds: [],
      sessionKey: '',
      actor: { kind: 'user' as const, email: 'ops@example.test' },
    };
    const trxid = await payNewTransaction();
    await setMerchantEnabled(t.deps, operator, { id: t.merchant.id, enabled: false });
    try {
      t.clock.advance(3_600_000);
      expect((await dispatch()).claimed).toBe(0);
      expect(receiver.requests).toHaveLength(0);
      const [event] = await eventsOf(trxid);
      expect(await deliveryOf(event!.id)).toMatchObject({ status: 'pending', attempts: 0 });
    } finally {
      await setMerchantEnabled(t.deps, operator, { id: t.merchant.id, enabled: true });
    }
    expect((await dispatch()).states).toEqual(['succeeded']);
    expect(receiver.requests).toHaveLength(1);
  });
});

describe('the worker loop', () => {
  it('polls on its interval, delivers, and stops cleanly', async () => {
    const worker = startWebhookDispatcher(t.deps, { intervalMs: 20, random });
    try {
      const trxid = await payNewTransaction();
      const [event] = await eventsOf(trxid);
      await expect.poll(() => receiver.eventIds(), { timeout: 5000 }).toEqual([event!.id]);
      await expect.poll(async () => (await deliveryOf(event!.id)).status, { timeout: 5000 }).toBe('succeeded');
    } finally {
      await worker.stop();
    }
    await payNewTransaction();
    await new Promise((r) => setTimeout(r, 100));
    expect(receiver.requests).toHaveLength(1); // stopped: nothing more is sent
  });
});

describe('several dispatchers on one database', () => {
  it('deliver each event exactly once', async () => {
    receiver.respond = () => ({ status: 200, delayMs: 5 });
    const trxids: string[] = [];
    for (let i = 0; i < 24; i += 1) trxids.push(await payNewTransaction(20_000 + i * 100));
    const expected = (await Promise.all(trxids.map(eventsOf))).flat().map((e) => e.id);

    // A second connection, as a second gateway instance would have.
    const second = openDatabase(t.databaseUrl);
    const deps2: Deps = { ...t.deps, db: second, state: newServiceState() };
    const claimed = [0, 0];
    const pending = async () =>
      (
        await t.deps.db
          .selectFrom('deliveries')
          .select('id')
          .where('endpoint_id', '=', endpoint.id)
          .where('status', '=', 'pending')
          .execute()
      ).length;
    // Each keeps going until the queue is empty: losing a race for a row is not the end of the work.
    const drain = async (deps: Deps, who: number) => {
      while ((await pending()) > 0) {
        const report = await dispatch(deps, 3);
        claimed[who]! += report.claimed;
        if (report.claimed === 0) await new Promise((r) => setTimeout(r, 5));
      }
    };
    try {
      await Promise.all([drain(t.deps, 0), drain(deps2, 1), drain(t.deps, 0), drain(deps2, 1)]);
    } finally {
      await second.close();
    }
    expect(claimed[0]).toBeGreaterThan(0);
    expect(claimed[1]).toBeGreaterThan(0);
    expect(claimed[0]! + claimed[1]!).toBe(expected.length);
    expect([...receiver.eventIds()].sort()).toEqual([...expected].sort());
    const states = await t.deps.db
      .selectFrom('deliveries')
      .select('status')
      .where('endpoint_id', '=', endpoint.id)
      .execute();
    expect(states.every((s) => s.status === 'succeeded')).toBe(true);
  });
});
