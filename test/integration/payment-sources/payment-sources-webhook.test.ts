import { TEST_ACTOR } from '../../helpers/console.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setSourceEnabled } from '../../../src/services/sources/set-source-enabled.js';
import { setMerchantEnabled } from '../../../src/services/merchants/set-merchant-enabled.js';
import { addWebhookSource } from '../../../src/payment-sources/webhook/setup.js';
import { signPayload } from '../../../src/payment-sources/webhook/signature.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { cli, createLive, footprint, listen, status } from '../../helpers/payment-sources.js';

let t: TestApp;
let base: string;
let source: { id: string; secret: string; url: string };
let amount = 40_000;

beforeAll(async () => {
  t = await createTestApp();
  base = await listen(t);
  const created = await cli(t, ['source', 'add', '--merchant', t.merchant.id, '--type', 'webhook', '--json']);
  expect(created.code, created.stdout + created.stderr).toBe(0);
  source = created.json as typeof source;
});
afterAll(async () => t.close());

const unix = () => Math.floor(t.clock.now() / 1000);

async function post(
  body: string,
  options: { secret?: string; t?: number; header?: string | null; url?: string; contentType?: string } = {},
): Promise<{ status: number; body: any }> {
  const signature =
    options.header !== undefined
      ? options.header
      : signPayload(options.secret ?? source.secret, body, options.t ?? unix());
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json' };
  if (signature !== null) headers['x-signature'] = signature;
  const res = await fetch(`${base}${options.url ?? source.url}`, { method: 'POST', headers, body });
  return { status: res.status, body: await res.json() };
}

const payment = (total: number, over: Record<string, unknown> = {}) =>
  JSON.stringify({ id: `wallet-${++amount}`, amount: total, paid_at: new Date(t.clock.now()).toISOString(), ...over });

describe('signed webhook source', () => {
  it('source add --json prints exactly id, secret and url; the secret is long and random', () => {
    expect(Object.keys(source).sort()).toEqual(['id', 'secret', 'url']);
    expect(source.id).toMatch(/^src_/);
    expect(source.url).toBe(`/api/payment-sources/${source.id}/events`);
    expect(source.secret.length).toBeGreaterThanOrEqual(32);
  });

  it('is documented in /openapi.json (once, without an API key)', async () => {
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, any>> };
    const route = doc.paths['/api/payment-sources/{source}/events'];
    expect(route?.post).toMatchObject({ security: [] });
    expect(Object.keys(doc.paths).filter((p) => p.includes('payment-sources'))).toEqual([
      '/api/payment-sources/{source}/events',
    ]);
  });

  it('a signed post pays a pending transaction, and cstatus shows who paid', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    const body = payment(tx.total_amount, { reference: 'DANA-778899', payer: 'Budi Santoso', issuer: 'DANA' });
    const res = await post(body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { payment_id: expect.stringMatching(/^pay_/), status: 'matched', trxid: tx.trxid, reason: null },
    });
    expect(await status(base, t.liveKey, tx.trxid)).toMatchObject({
      status: 'paid',
      paid_late: false,
      payment: {
        id: res.body.data.payment_id,
        source: source.id,
        reference: 'DANA-778899',
        issuer: 'DANA',
        payer_name: 'Budi Santoso',
        amount: tx.total_amount,
      },
    });

    // The same post again (a sender's retry) is a duplicate of the same payment.
    const again = await post(body);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({
      payment_id: res.body.data.payment_id,
      status: 'duplicate',
      trxid: tx.trxid,
      reason: null,
    });
  });

  // issue 23, finding 9: a disabled merchant's signed source is answered clearly, and pays nothing.
  it("stores a disabled merchant's report and answers unmatched with reason merchant_disabled", async () => {
    const operator = {
      userId: 'usr_test',
      email: 'ops@example.test',
      role: 'operator' as const,
      merchantIds: [],
      sessionKey: '',
      actor: { kind: 'user' as const, email: 'ops@example.test' },
    };
    const tx = await createLive(base, t.liveKey, ++amount);
    await setMerchantEnabled(t.deps, operator, { id: t.merchant.id, enabled: false });
    try {
      const res = await post(payment(tx.total_amount));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toEqual({
        payment_id: expect.stringMatching(/^pay_/),
        status: 'unmatched',
        trxid: null,
        reason: 'merchant_disabled',
      });
      const row = await t.deps.db
        .selectFrom('transactions')
        .select('status')
        .where('id', '=', tx.trxid)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe('pending');
    } finally {
      await setMerchantEnabled(t.deps, operator, { id: t.merchant.id, enabled: true });
    }
  });

  it('answers under /api/api too, and verifies the exact bytes sent (spacing, non-ASCII)', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    const body = `{ "id" : "raw-${amount}",\n  "amount": ${tx.total_amount}, "paid_at": "${new Date(t.clock.now()).toISOString()}", "payer": "Śantoso 山田" }`;
    const res = await post(body, { url: `/api${source.url}`, contentType: 'application/json; charset=utf-8' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'matched', trxid: tx.trxid });
    expect((await status(base, t.liveKey, tx.trxid)).payment.payer_name).toBe('Śantoso 山田');
  });

  it('a payment nobody expected is unmatched, listed, and can be assigned', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    const res = await post(payment(tx.total_amount + 500_000));
    expect(res.body.data).toEqual({
      payment_id: expect.any(String),
      status: 'unmatched',
      trxid: null,
      reason: 'no_matching_transaction',
    });
    const listed = await cli(t, ['payments', 'list', '--status', 'unmatched', '--merchant', t.merchant.id, '--json']);
    expect(listed.json!.items.map((p: any) => p.id)).toContain(res.body.data.payment_id);
    expect(listed.json!.items.find((p: any) => p.id === res.body.data.payment_id)).toMatchObject({
      reason: 'no_matching_transaction',
      source: source.id,
    });

    // The amounts disagree, so the operator cannot assign it to this transaction without accepting the difference.
    const refused = await cli(t, ['payments', 'assign', res.body.data.payment_id, tx.trxid, '--json']);
    expect(refused.code).toBe(1);
    expect(refused.json!.error.code).toBe('amount_differs');
  });

  it('a payment after the reservation grace matches nothing by amount, and the operator assigns it late', async () => {
    const tx = await createLive(base, t.liveKey, ++amount, { expires_in: '60' });
    t.clock.advance((60 + t.config.reservationGraceSeconds + 1) * 1000);
    const res = await post(payment(tx.total_amount));
    expect(res.body.data).toMatchObject({ status: 'unmatched', trxid: null, reason: 'no_matching_transaction' });
    const assigned = await cli(t, ['payments', 'assign', res.body.data.payment_id, tx.trxid, '--json']);
    expect(assigned.code, assigned.stdout).toBe(0);
    expect(assigned.json).toMatchObject({
      payment: { id: res.body.data.payment_id, status: 'matched', reason: null, trxid: tx.trxid },
      transaction: { trxid: tx.trxid, status: 'paid', paid_late: true },
    });
    expect(await status(base, t.liveKey, tx.trxid)).toMatchObject({
      status: 'paid',
      paid_late: true,
      payment: { id: res.body.data.payment_id, source: source.id },
    });
    const audit = await t.deps.db
      .selectFrom('audit_log')
      .selectAll()
      .where('subject_id', '=', res.body.data.payment_id)
      .execute();
    expect(audit).toMatchObject([{ actor: 'test-operator', action: 'payment.assign', subject_type: 'payment' }]);

    // Assigning it again, or another payment to the paid transaction, is refused.
    expect((await cli(t, ['payments', 'assign', res.body.data.payment_id, tx.trxid, '--json'])).json!.error.code).toBe(
      'payment_already_matched',
    );
  });

  describe('refusals change nothing', () => {
    let tx: Record<string, any>;
    beforeAll(async () => {
      tx = await createLive(base, t.liveKey, ++amount);
    });

    async function refused(res: Promise<{ status: number; body: any }>, code: number, error: string): Promise<void> {
      const before = await footprint(t);
      const r = await res;
      expect(r.status, JSON.stringify(r.body)).toBe(code);
      expect(r.body).toMatchObject({ success: false, error: { code: error, request_id: expect.any(String) } });
      expect(await footprint(t)).toEqual(before);
      expect((await status(base, t.liveKey, tx.trxid)).status).toBe('pending');
    }

    it('a wrong secret is 401 invalid_signature', async () => {
      await refused(post(payment(tx.total_amount), { secret: 'whsec_guess' }), 401, 'invalid_signature');
    });

    it('a missing or malformed signature is 401', async () => {
      await refused(post(payment(tx.total_amount), { header: null }), 401, 'invalid_signature');
      await refused(post(payment(tx.total_amount), { header: 'sha256=abc' }), 401, 'invalid_signature');
    });

    it('a replay outside the 5-minute window is 401, even with a valid HMAC', async () => {
      await refused(post(payment(tx.total_amount), { t: unix() - 301 }), 401, 'invalid_signature');
      await refused(post(payment(tx.total_amount), { t: unix() + 301 }), 401, 'invalid_signature');
    });

    it('a body changed after signing is 401', async () => {
      const body = payment(tx.total_amount);
      const header = signPayload(source.secret, body, unix());
      await refused(post(body.replace('"amount"', ' "amount"'), { header }), 401, 'invalid_signature');
    });

    it('malformed JSON (correctly signed) is 400 invalid_body; bad fields are 400 naming the field', async () => {
      await refused(post('{"id": "x", "amount": '), 400, 'invalid_body');
      await refused(post(''), 400, 'invalid_body');
      await refused(post(payment(tx.total_amount, { amount: '10.000' })), 400, 'invalid_amount');
      await refused(post(payment(tx.total_amount, { paid_at: 'yesterday' })), 400, 'invalid_parameter');
      await refused(post(payment(tx.total_amount, { extra: true })), 400, 'invalid_parameter');
    });

    it('an unknown, malformed or disabled source is 404, checked before the signature', async () => {
      await refused(
        post(payment(tx.total_amount), { url: '/api/payment-sources/src_doesnotexist0000/events' }),
        404,
        'source_not_found',
      );
      await refused(
        post(payment(tx.total_amount), { url: '/api/payment-sources/..%2Fx/events' }),
        404,
        'source_not_found',
      );
      const spare = await addWebhookSource(t.deps, { merchantId: t.merchant.id });
      await setSourceEnabled(t.deps, { id: spare.id, enabled: false, actor: TEST_ACTOR });
      await refused(post(payment(tx.total_amount), { url: spare.url, secret: spare.secret }), 404, 'source_not_found');
    });

    it('other methods are 405 with Allow: POST; an oversized body is 413', async () => {
      const get = await fetch(`${base}${source.url}`);
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST');
      await refused(post(JSON.stringify({ pad: 'x'.repeat(t.config.bodyLimitBytes) })), 413, 'payload_too_large');
    });
  });
});
