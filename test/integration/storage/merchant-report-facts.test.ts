// merchantReportFacts (storage/queries/merchants.ts): the one statement a batch of payment reports reads
// its merchant with answers exactly what the three reads it replaced would (when the merchant was
// disabled, its endpoints that are not disabled, its active alert channels), for that merchant alone.
// On both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addNotifyChannel } from '../../../src/services/notify/add-notify-channel.js';
import { removeNotifyChannel } from '../../../src/services/notify/remove-notify-channel.js';
import { addWebhookEndpoint } from '../../../src/services/webhooks/add-webhook-endpoint.js';
import { removeWebhookEndpoint } from '../../../src/services/webhooks/remove-webhook-endpoint.js';
import { merchantReportFacts, setMerchantDisabledAt } from '../../../src/storage/queries/merchants.js';
import { activeNotifyChannelIds } from '../../../src/storage/queries/notify.js';
import { enabledEndpointSubscriptions } from '../../../src/storage/queries/webhook-endpoints.js';
import { createTestApp, seedMerchant, type TestApp } from '../../helpers/context.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8' });
});
afterAll(async () => t.close());

/** The three reads merchantReportFacts replaced, one by one. */
async function separately(merchantId: string) {
  const row = await t.deps.db
    .selectFrom('merchants')
    .select('disabled_at')
    .where('id', '=', merchantId)
    .executeTakeFirst();
  return {
    disabledAt: row === undefined ? undefined : (row.disabled_at ?? null),
    endpoints: await enabledEndpointSubscriptions(t.deps.db, merchantId),
    channels: await activeNotifyChannelIds(t.deps.db, merchantId),
  };
}

const telegram = (merchantId: string) => ({
  merchantId,
  type: 'telegram',
  botToken: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw',
  chatId: '-1001234567890',
});

const sorted = <T extends { id: string } | string>(list: T[]) =>
  [...list].sort((a, b) => (typeof a === 'string' ? a : a.id).localeCompare(typeof b === 'string' ? b : b.id));

async function expectSame(merchantId: string) {
  const facts = await t.deps.db.runInTransaction((trx) => merchantReportFacts(trx, merchantId));
  const expected = await separately(merchantId);
  expect(facts.disabledAt).toStrictEqual(expected.disabledAt);
  expect(sorted(facts.endpoints)).toStrictEqual(sorted(expected.endpoints));
  expect(sorted(facts.channels)).toStrictEqual(sorted(expected.channels));
  return facts;
}

describe('a merchant read for a batch of payment reports', () => {
  it('is the three reads in one: nothing set up, then endpoints and channels, some removed, then disabled', async () => {
    const other = await seedMerchant(t.deps, 1, 'Other Merchant');
    const facts = await expectSame(t.merchant.id);
    expect(facts).toStrictEqual({ disabledAt: null, endpoints: [], channels: [] });

    const kept = await addWebhookEndpoint(t.deps, {
      merchantId: t.merchant.id,
      url: 'http://127.0.0.1:9/kept',
      events: ['transaction.paid'],
    });
    const removed = await addWebhookEndpoint(t.deps, { merchantId: t.merchant.id, url: 'http://127.0.0.1:9/gone' });
    await addWebhookEndpoint(t.deps, { merchantId: other.merchant.id, url: 'http://127.0.0.1:9/other' });
    const channel = await addNotifyChannel(t.deps, telegram(t.merchant.id));
    const dropped = await addNotifyChannel(t.deps, telegram(t.merchant.id));
    await addNotifyChannel(t.deps, telegram(other.merchant.id));
    await removeWebhookEndpoint(t.deps, removed.id);
    await removeNotifyChannel(t.deps, dropped.id);

    const withBoth = await expectSame(t.merchant.id);
    expect(withBoth.endpoints).toStrictEqual([{ id: kept.id, events: JSON.stringify(['transaction.paid']) }]);
    expect(withBoth.channels).toStrictEqual([channel.id]);

    const disabledAt = t.clock.now();
    await t.deps.db.runInTransaction((trx) => setMerchantDisabledAt(trx, t.merchant.id, disabledAt));
    expect((await expectSame(t.merchant.id)).disabledAt).toBe(disabledAt);
    await t.deps.db.runInTransaction((trx) => setMerchantDisabledAt(trx, t.merchant.id, null));

    // Another merchant's rows are its own; a merchant that does not exist has none.
    expect((await expectSame(other.merchant.id)).endpoints).toHaveLength(1);
    expect(await expectSame('mch_does_not_exist')).toStrictEqual({
      disabledAt: undefined,
      endpoints: [],
      channels: [],
    });
  });
});
