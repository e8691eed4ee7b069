// Without WEBHOOK_ALLOW_NETWORKS the gateway refuses to post to its own host, private networks and cloud
// metadata, whatever the URL looks like, and without opening a connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEndpointId } from '../../../src/domain/ids.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { addWebhookEndpoint } from '../../../src/services/webhooks/add-webhook-endpoint.js';
import { newWebhookSecret } from '../../../src/services/webhooks/webhook-secret.js';
import { dispatchDueDeliveries } from '../../../src/workers/webhook-dispatcher.js';
import { createTestContext, seedMerchant, type Seeded, type TestContext } from '../../helpers/context.js';
import { Receiver } from '../../helpers/receiver.js';

let t: TestContext;
let seeded: Seeded;
let receiver: Receiver;

beforeAll(async () => {
  t = await createTestContext({ WEBHOOK_TIMEOUT_MS: '5000' });
  seeded = await seedMerchant(t.deps);
  receiver = await Receiver.start();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

describe('SSRF guard', () => {
  it('refuses loopback, private and metadata URLs when an endpoint is added', async () => {
    for (const url of [
      receiver.url(),
      'http://169.254.169.254/latest/meta-data/',
      'http://localhost:8080/',
      'http://[::1]/',
      'http://10.1.2.3/',
    ]) {
      await expect(addWebhookEndpoint(t.deps, { merchantId: seeded.merchant.id, url })).rejects.toMatchObject({
        code: 'invalid_parameter',
        param: 'url',
      });
    }
    expect(await t.deps.db.selectFrom('webhook_endpoints').selectAll().execute()).toEqual([]);
  });

  it('refuses at connect time, records a failed attempt with a clear error, and the receiver sees nothing', async () => {
    // Rows written directly, as if the allow-list had been there when they were added, or as if a
    // name had resolved elsewhere then (the add-time check cannot see DNS changes).
    const urls = [
      receiver.url(),
      `http://localhost:${receiver.port}/hook`,
      `http://[::ffff:127.0.0.1]:${receiver.port}/hook`,
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]:9/',
    ];
    for (const url of urls) {
      await t.deps.db
        .insertInto('webhook_endpoints')
        .values({
          id: newEndpointId(),
          merchant_id: seeded.merchant.id,
          url,
          secret: newWebhookSecret(),
          events: '["*"]',
          status: 'active',
          consecutive_failures: 0,
          created_at: t.clock.now(),
          updated_at: t.clock.now(),
        })
        .execute();
    }
    await recordPayment(t.deps, {
      merchantId: seeded.merchant.id,
      mode: 'test',
      source: 'ssrf-test',
      sourcePaymentId: 'p1',
      amount: 777,
      paidAt: t.clock.now(),
    });

    const report = await dispatchDueDeliveries(t.deps, { random: () => 0.5 });
    expect(report.states).toEqual(urls.map(() => 'retrying'));
    // Refused before connecting, not timed out: each attempt's error below says so.

    const attempts = await t.deps.db
      .selectFrom('delivery_attempts as a')
      .innerJoin('deliveries as d', 'd.id', 'a.delivery_id')
      .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
      .select(['w.url', 'a.succeeded', 'a.status_code', 'a.error'])
      .execute();
    expect(attempts).toHaveLength(urls.length);
    for (const a of attempts) {
      expect(a).toMatchObject({ succeeded: 0, status_code: null });
      expect(a.error).toMatch(/destination refused: .* is (loopback|link-local).*WEBHOOK_ALLOW_NETWORKS/);
    }
    expect(attempts.find((a) => a.url.includes('169.254'))!.error).toContain('169.254.169.254 is link-local');
    expect(attempts.find((a) => a.url.includes('localhost'))!.error).toMatch(
      /localhost \((127\.0\.0\.1|::1)\) is loopback/,
    );
    expect(receiver.requests).toHaveLength(0);
    expect(receiver.connections).toBe(0);
  });
});
