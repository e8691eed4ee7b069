// `webhooks add|list|remove|resend`, in-process through runCli against a real database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { createTestContext, seedMerchant, type Seeded, type TestContext } from '../../helpers/context.js';

let t: TestContext;
let seeded: Seeded;
let other: Seeded;
let env: Record<string, string>;

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (s) => void out.push(s), err: (s) => void err.push(s) }, env);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/** --json: exit 0 and exactly one line holding one JSON object. */
async function jsonOk(...argv: string[]): Promise<Record<string, any>> {
  const r = await cli(...argv, '--json');
  expect(r.stderr).toBe('');
  expect(r.code, r.stdout).toBe(0);
  const lines = r.stdout.split('\n');
  expect(lines).toHaveLength(2);
  expect(lines[1]).toBe('');
  return JSON.parse(lines[0]!);
}

async function jsonError(...argv: string[]): Promise<{ code: string; message: string; param?: string }> {
  const r = await cli(...argv, '--json');
  expect(r.code).toBe(1);
  expect(r.stderr).toBe('');
  const body = JSON.parse(r.stdout);
  expect(Object.keys(body)).toEqual(['error']);
  return body.error;
}

beforeAll(async () => {
  t = await createTestContext();
  seeded = await seedMerchant(t.deps, 0, 'Warung');
  other = await seedMerchant(t.deps, 1, 'Sembako');
  env = { DATABASE_URL: t.databaseUrl, QRIS_OPERATOR: 'ops@test' };
});
afterAll(async () => t.close());

describe('webhooks add', () => {
  it('prints exactly {"id", "secret"}; the secret is whsec_ and the base64 of 32 bytes', async () => {
    const body = await jsonOk(
      'webhooks',
      'add',
      '--merchant',
      seeded.merchant.id,
      '--url',
      'https://shop.example.com/hooks/qris',
    );
    expect(Object.keys(body)).toEqual(['id', 'secret']);
    expect(body.id).toMatch(/^we_[0-9A-Za-z]{16}$/);
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(body.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    const row = await t.deps.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      merchant_id: seeded.merchant.id,
      secret: body.secret,
      events: '["*"]',
      status: 'active',
    });
    const audit = await t.deps.db.selectFrom('audit_log').selectAll().where('subject_id', '=', body.id).execute();
    expect(audit.map((a) => [a.actor, a.action])).toEqual([['ops@test', 'webhook_endpoint.add']]);
  });

  it('takes a list of event types and refuses unknown ones', async () => {
    const body = await jsonOk(
      'webhooks',
      'add',
      '--merchant',
      seeded.merchant.id,
      '--url',
      'https://shop.example.com/paid',
      '--events',
      'transaction.paid,payment.unmatched',
    );
    const row = await t.deps.db
      .selectFrom('webhook_endpoints')
      .select('events')
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.events)).toEqual(['transaction.paid', 'payment.unmatched']);
    const error = await jsonError(
      'webhooks',
      'add',
      '--merchant',
      seeded.merchant.id,
      '--url',
      'https://shop.example.com/',
      '--events',
      'transaction.paid,order.shipped',
    );
    expect(error).toMatchObject({ code: 'invalid_parameter', param: 'events' });
  });

  it.each([
    ['ftp://shop.example.com/', /http or https/],
    ['https://user:pw@shop.example.com/', /user name or password/],
    [`https://shop.example.com/${'a'.repeat(2050)}`, /2048/],
    ['http://127.0.0.1:3000/hook', /loopback.*WEBHOOK_ALLOW_NETWORKS/],
    ['http://169.254.169.254/latest/meta-data/', /link-local/],
    ['not a url', /valid absolute URL/],
  ])('refuses %s', async (url, message) => {
    const error = await jsonError('webhooks', 'add', '--merchant', seeded.merchant.id, '--url', url);
    expect(error.code).toBe('invalid_parameter');
    expect(error.param).toBe('url');
    expect(error.message).toMatch(message);
  });

  it('accepts a loopback URL when the operator allows it', async () => {
    const saved = env;
    env = { ...env, WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8' };
    try {
      const body = await jsonOk(
        'webhooks',
        'add',
        '--merchant',
        other.merchant.id,
        '--url',
        'http://127.0.0.1:3000/hook',
      );
      expect(body.id).toMatch(/^we_/);
    } finally {
      env = saved;
    }
  });

  it('refuses an unknown merchant and a malformed allow-list', async () => {
    expect(
      await jsonError('webhooks', 'add', '--merchant', 'mch_nope', '--url', 'https://shop.example.com/'),
    ).toMatchObject({ code: 'merchant_not_found' });
    const saved = env;
    env = { ...env, WEBHOOK_ALLOW_NETWORKS: '127.0.0.1/8' };
    try {
      const error = await jsonError(
        'webhooks',
        'add',
        '--merchant',
        seeded.merchant.id,
        '--url',
        'https://shop.example.com/',
      );
      expect(error.message).toMatch(/WEBHOOK_ALLOW_NETWORKS.*host bits set/);
    } finally {
      env = saved;
    }
  });

  it('prints the secret once, with a reminder, without --json', async () => {
    const r = await cli('webhooks', 'add', '--merchant', seeded.merchant.id, '--url', 'https://shop.example.com/human');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^created webhook endpoint we_\w+ -> https:\/\/shop\.example\.com\/human \(\*\)\nsigning secret, shown only now: whsec_[A-Za-z0-9+/]{43}=\n/,
    );
    expect(r.stdout).toContain('older events are not sent');
  });
});

describe('webhooks list and remove', () => {
  it('lists endpoints without their secrets, optionally for one merchant', async () => {
    const all = await jsonOk('webhooks', 'list');
    expect(all.items.length).toBe(4);
    expect(JSON.stringify(all)).not.toContain('whsec_');
    expect(Object.keys(all.items[0]).sort()).toEqual([
      'consecutive_failures',
      'created_at',
      'events',
      'id',
      'merchant_id',
      'status',
      'updated_at',
      'url',
    ]);
    const mine = await jsonOk('webhooks', 'list', '--merchant', other.merchant.id);
    expect(mine.items.map((e: { url: string }) => e.url)).toEqual(['http://127.0.0.1:3000/hook']);
  });

  it('remove disables the endpoint and keeps it listed', async () => {
    const [first] = (await jsonOk('webhooks', 'list', '--merchant', seeded.merchant.id)).items;
    const removed = await jsonOk('webhooks', 'remove', first.id);
    expect(removed).toMatchObject({ id: first.id, status: 'disabled', cancelled_deliveries: 0 });
    const again = await jsonOk('webhooks', 'list', '--merchant', seeded.merchant.id);
    expect(again.items.find((e: { id: string }) => e.id === first.id).status).toBe('disabled');
    expect(await jsonError('webhooks', 'remove', 'we_missing')).toMatchObject({ code: 'not_found' });
  });
});

describe('webhooks resend', () => {
  let eventId: string;
  let endpointId: string;

  beforeAll(async () => {
    endpointId = (
      await jsonOk('webhooks', 'add', '--merchant', seeded.merchant.id, '--url', 'https://shop.example.com/resend')
    ).id;
    const result = await recordPayment(t.deps, {
      merchantId: seeded.merchant.id,
      mode: 'test',
      source: 'cli-test',
      sourcePaymentId: 'r1',
      amount: 4321,
      paidAt: t.clock.now(),
    });
    const event = await t.deps.db
      .selectFrom('events')
      .select('id')
      .where('payment_id', '=', result.payment.id)
      .executeTakeFirstOrThrow();
    eventId = event.id;
    // Pretend the deliveries ran out of retries.
    await t.deps.db
      .updateTable('deliveries')
      .set({ status: 'failed', attempts: 22, next_attempt_at: 0 })
      .where('event_id', '=', eventId)
      .execute();
  });

  const deliveries = () => t.deps.db.selectFrom('deliveries').selectAll().where('event_id', '=', eventId).execute();

  it('re-queues every delivery of an event, due now', async () => {
    const before = await deliveries();
    expect(before.length).toBeGreaterThan(1);
    const body = await jsonOk('webhooks', 'resend', eventId);
    expect(body.requeued).toBe(before.length);
    expect([...body.deliveries].sort()).toEqual(before.map((d) => d.id).sort());
    for (const d of await deliveries()) {
      expect(d).toMatchObject({ status: 'pending', attempts: 0, locked_until: null });
      expect(Math.abs(d.next_attempt_at - Date.now())).toBeLessThan(60_000);
    }
  });

  it('re-queues all failed deliveries of one endpoint with --failed', async () => {
    await t.deps.db.updateTable('deliveries').set({ status: 'failed' }).where('event_id', '=', eventId).execute();
    const body = await jsonOk('webhooks', 'resend', '--endpoint', endpointId, '--failed');
    expect(body.requeued).toBe(1);
    const mine = (await deliveries()).filter((d) => d.endpoint_id === endpointId);
    expect(mine.map((d) => d.status)).toEqual(['pending']);
    expect((await deliveries()).filter((d) => d.endpoint_id !== endpointId).every((d) => d.status === 'failed')).toBe(
      true,
    );
  });

  it('sends an event to one endpoint, even one added after it', async () => {
    const later = (
      await jsonOk('webhooks', 'add', '--merchant', seeded.merchant.id, '--url', 'https://shop.example.com/later')
    ).id;
    expect((await deliveries()).some((d) => d.endpoint_id === later)).toBe(false);
    const body = await jsonOk('webhooks', 'resend', eventId, '--endpoint', later);
    expect(body.requeued).toBe(1);
    expect((await deliveries()).filter((d) => d.endpoint_id === later).map((d) => d.status)).toEqual(['pending']);
  });

  it('refuses what makes no sense', async () => {
    expect(await jsonError('webhooks', 'resend')).toMatchObject({ code: 'invalid_parameter' });
    expect(await jsonError('webhooks', 'resend', '--failed')).toMatchObject({
      code: 'invalid_parameter',
      param: 'endpoint',
    });
    expect(await jsonError('webhooks', 'resend', eventId, '--failed', '--endpoint', endpointId)).toMatchObject({
      code: 'invalid_parameter',
    });
    expect(await jsonError('webhooks', 'resend', 'evt_missing')).toMatchObject({ code: 'not_found', param: 'event' });
    const foreign = (await jsonOk('webhooks', 'list', '--merchant', other.merchant.id)).items[0].id;
    expect(await jsonError('webhooks', 'resend', eventId, '--endpoint', foreign)).toMatchObject({
      code: 'invalid_parameter',
      param: 'endpoint',
    });
    const disabled = (await jsonOk('webhooks', 'list', '--merchant', seeded.merchant.id)).items.find(
      (e: { status: string }) => e.status === 'disabled',
    ).id;
    expect(await jsonError('webhooks', 'resend', '--endpoint', disabled, '--failed')).toMatchObject({
      code: 'invalid_parameter',
    });
  });

  it('says what it did without --json', async () => {
    const r = await cli('webhooks', 'resend', eventId, '--endpoint', endpointId);
    expect(r).toEqual({ code: 0, stdout: 'queued 1 delivery to send now\n', stderr: '' });
  });
});
