// waitForPayment against a real gateway process: it follows the live status stream, falls back to
// polling when the stream is refused or a proxy breaks it, rides out a gateway that is briefly away, and
// ends on a final state, a timeout or the caller's abort.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QrisGatewayClient, QrisGatewayError } from '@qris-gateway/client';
import { startSeededGateway, type SeededGateway } from '../helpers/seeded-gateway.js';
import { FaultProxy } from '../helpers/fault-proxy.js';

let gateway: SeededGateway;
let client: QrisGatewayClient;

beforeAll(async () => {
  // One stream per transaction, so a test can take the only one; expiries as short as a second.
  gateway = await startSeededGateway({ CHECKOUT_STREAMS_PER_TRANSACTION: '1', EXPIRES_IN_MIN_SECONDS: '1' });
  client = new QrisGatewayClient({ baseUrl: gateway.url, apiKey: gateway.testKey });
}, 180_000);

afterAll(async () => {
  await gateway?.stop();
});

/** A client whose requests are recorded as "METHOD path" with their answer's status. */
function recordingClient(baseUrl = gateway.url): { client: QrisGatewayClient; calls: string[] } {
  const calls: string[] = [];
  const recorded: typeof fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const response = await fetch(input, init);
    calls.push(`${init?.method ?? 'GET'} ${url.pathname} ${response.status}`);
    return response;
  };
  return { client: new QrisGatewayClient({ baseUrl, apiKey: gateway.testKey, fetch: recorded }), calls };
}

const later = (ms: number, fn: () => Promise<unknown>) =>
  new Promise<void>((resolve, reject) => setTimeout(() => fn().then(() => resolve(), reject), ms));

describe('waitForPayment on the live stream', () => {
  it('resolves with the paid transaction as soon as it is paid, without polling', async () => {
    const tx = await client.createQris({ amount: 51_000 });
    const watcher = recordingClient();
    const [paid] = await Promise.all([
      watcher.client.waitForPayment(tx.trxid),
      later(700, () => client.simulatePayment(tx.trxid)),
    ]);
    expect(paid).toMatchObject({ trxid: tx.trxid, status: 'paid', paid_late: false });
    expect(paid.payment?.amount).toBe(tx.total_amount);
    // As soon as it is paid: one read to start, the stream, one read of the final transaction (no polling).
    expect(watcher.calls).toEqual([
      'GET /api/payment-gateway/cstatus 200',
      `GET /checkout/${tx.trxid}/events 200`,
      'GET /api/payment-gateway/cstatus 200',
    ]);
  });

  it('resolves with a cancelled transaction when it is cancelled meanwhile', async () => {
    const tx = await client.createQris({ amount: 52_000 });
    const [done] = await Promise.all([client.waitForPayment(tx.trxid), later(500, () => client.cancel(tx.trxid))]);
    expect(done).toMatchObject({ trxid: tx.trxid, status: 'cancelled' });
  });

  it('resolves with an expired transaction at its expiry', async () => {
    const tx = await client.createQris({ amount: 53_000, expiresIn: 2 });
    const done = await client.waitForPayment(tx.trxid);
    expect(done.status).toBe('expired');
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(tx.expires_at));
  });

  it('resolves at once for a transaction already final, without opening a stream', async () => {
    const tx = await client.createQris({ amount: 54_000 });
    await client.simulatePayment(tx.trxid);
    const watcher = recordingClient();
    expect((await watcher.client.waitForPayment(tx.trxid)).status).toBe('paid');
    expect(watcher.calls).toEqual(['GET /api/payment-gateway/cstatus 200']);
  });
});

describe('waitForPayment without a stream', () => {
  it('polls when the stream is refused (the transaction has its one stream taken) and still sees the payment', async () => {
    const tx = await client.createQris({ amount: 55_000 });
    const taken = new AbortController();
    const other = await fetch(`${gateway.url}/checkout/${tx.trxid}/events`, { signal: taken.signal });
    expect(other.status).toBe(200);
    try {
      const watcher = recordingClient();
      const [paid] = await Promise.all([
        watcher.client.waitForPayment(tx.trxid),
        later(1500, () => client.simulatePayment(tx.trxid)),
      ]);
      expect(paid.status).toBe('paid');
      expect(watcher.calls[1]).toBe(`GET /checkout/${tx.trxid}/events 429`);
      expect(watcher.calls.filter((c) => c.includes('cstatus')).length).toBeGreaterThanOrEqual(3);
    } finally {
      taken.abort();
    }
  });

  it('rides out a gateway answering 502 and dropped connections while it polls', async () => {
    const proxy = await FaultProxy.start(gateway.url);
    try {
      const tx = await client.createQris({ amount: 56_000 });
      let reads = 0;
      proxy.plan = (_method, path) => {
        if (path.includes('/events'))
          return { kind: 'answer', status: 503, headers: { 'content-type': 'text/html' }, body: 'no streams here' };
        if (!path.startsWith('/api/payment-gateway/cstatus')) return { kind: 'forward' };
        reads += 1;
        // The first read goes through; then a 502 page, then a cut connection, then the gateway again.
        if (reads === 2)
          return {
            kind: 'answer',
            status: 502,
            headers: { 'content-type': 'text/html' },
            body: '<html>Bad Gateway</html>',
          };
        if (reads === 3) return { kind: 'drop-before' };
        return { kind: 'forward' };
      };
      const watcher = new QrisGatewayClient({ baseUrl: proxy.url, apiKey: gateway.testKey, maxRetries: 0 });
      const [paid] = await Promise.all([
        watcher.waitForPayment(tx.trxid),
        later(2500, () => client.simulatePayment(tx.trxid)),
      ]);
      expect(paid.status).toBe('paid');
      expect(reads).toBeGreaterThanOrEqual(4);
    } finally {
      await proxy.close();
    }
  });
});

describe('waitForPayment behind a proxy that holds the stream back', () => {
  it('gives the silent stream up after streamIdleTimeout and polls, seeing the payment', async () => {
    // The fault proxy forwards an answer only once it is complete: a stream it never passes on.
    const proxy = await FaultProxy.start(gateway.url);
    try {
      const tx = await client.createQris({ amount: 59_000 });
      const watcher = new QrisGatewayClient({ baseUrl: proxy.url, apiKey: gateway.testKey });
      let readsBeforePayment = 0;
      const [paid] = await Promise.all([
        watcher.waitForPayment(tx.trxid, { streamIdleTimeout: 800 }),
        later(2000, () => {
          readsBeforePayment = proxy.count('/api/payment-gateway/cstatus');
          return client.simulatePayment(tx.trxid);
        }),
      ]);
      expect(paid.status).toBe('paid');
      // Still held, the stream would have left it at its first read until the payment came.
      expect(readsBeforePayment).toBeGreaterThanOrEqual(2);
      // (The stream never passes the payment on, so only a poll could have resolved the wait.)
      expect(proxy.count(`/checkout/${tx.trxid}/events`)).toBe(1);
      expect(proxy.count('/api/payment-gateway/cstatus')).toBeGreaterThanOrEqual(3);
    } finally {
      await proxy.close();
    }
  });
});

describe('waitForPayment that ends early', () => {
  it('rejects with wait_timeout after its timeout, the transaction still pending', async () => {
    const tx = await client.createQris({ amount: 57_000 });
    // Nothing pays it: only the wait's own timeout can end the wait, and the error says it did.
    const err = await client.waitForPayment(tx.trxid, { timeout: 400 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QrisGatewayError);
    expect(err).toMatchObject({ code: 'wait_timeout', status: 0 });
    expect((await client.getStatus(tx.trxid)).status).toBe('pending');
  });

  it("rejects with the caller's abort reason, and frees the stream it held", async () => {
    const tx = await client.createQris({ amount: 58_000 });
    const controller = new AbortController();
    const waiting = client.waitForPayment(tx.trxid, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('the buyer left')), 500);
    await expect(waiting).rejects.toThrow('the buyer left');
    // The transaction's one stream is free again (the gateway notices the closed connection at once).
    let status = 0;
    for (let i = 0; i < 20 && status !== 200; i += 1) {
      const probe = new AbortController();
      const res = await fetch(`${gateway.url}/checkout/${tx.trxid}/events`, { signal: probe.signal });
      status = res.status;
      probe.abort();
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
  });

  it('rejects with the API error for an unknown transaction', async () => {
    const err = await client.waitForPayment('trx_0000000000000000000000000000000').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'transaction_not_found', status: 404 });
  });
});
