// Refunds through the HTTP API on a real database (issue 28, section 1): the static-QRIS record, partial and
// repeated refunds up to what was paid, refusals, idempotency, concurrency (one app and two on one database),
// events delivered to a real loopback receiver, and the acquirer path through an issuer of the test's own.
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/domain/errors.js';
import { buildApp } from '../../../src/app.js';
import { verifyStandardWebhook } from '../../../src/index.js';
import { codeIssuers } from '../../../src/payment-sources/issuers.js';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import type { CodeIssuer, IssuerRefund, IssuerRefundOutcome } from '../../../src/services/deps.js';
import { newServiceState } from '../../../src/services/state.js';
import { resolveDueRefunds } from '../../../src/services/refunds/resolve-due-refunds.js';
import { addWebhookEndpoint } from '../../../src/services/webhooks/add-webhook-endpoint.js';
import { openDatabase } from '../../../src/storage/database.js';
import { startRefundResolver } from '../../../src/workers/refund-resolver.js';
import { dispatchDueDeliveries } from '../../../src/workers/webhook-dispatcher.js';
import { API_BASE, create, CSTATUS } from '../../helpers/api.js';
import { createTestApp, seedMerchant, type TestApp } from '../../helpers/context.js';
import { expectError } from '../../helpers/http-assertions.js';
import { Receiver } from '../../helpers/receiver.js';

const REFUND = `${API_BASE}/refund`;

interface RefundView {
  id: string;
  amount: number;
  status: string;
  reason: string;
  created_at: string;
  completed_at: string | null;
  reference: string | null;
  recorded: boolean;
  error_code: string | null;
}
interface Tx {
  trxid: string;
  status: string;
  amount_paid: number;
  total_amount: number;
  refunded_amount: number;
  refund_status: string;
  refunds: RefundView[];
  [k: string]: unknown;
}
type Refunded = Tx & { refund: RefundView & { note: string } };

let t: TestApp | undefined;
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
  await t?.close();
  t = undefined;
});

async function app(env: Record<string, string> = {}): Promise<TestApp> {
  t = await createTestApp({ WEBHOOK_ALLOW_NETWORKS: '127.0.0.0/8', ...env });
  return t;
}

/** A new test-mode transaction of `a`'s merchant, paid in full by the simulator. */
async function paid(
  a: TestApp,
  key = a.testKey,
  merchantId = a.merchant.id,
  params: Record<string, string> = {},
): Promise<Tx> {
  const tx = await create<Tx>(a.app, key, params);
  await simulatePayment(a.deps, { merchantId, mode: 'test' }, tx.trxid);
  return status(a, tx.trxid, key);
}

async function status(a: TestApp, trxid: string, key = a.testKey): Promise<Tx> {
  const res = await a.app.inject({ url: `${CSTATUS}?trxid=${trxid}`, headers: { 'x-api-key': key } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as Tx;
}

function refund(
  a: TestApp,
  params: Record<string, unknown>,
  options: { key?: string; idem?: string; how?: 'json' | 'form' | 'query'; prefix?: string } = {},
) {
  const headers: Record<string, string> = { 'x-api-key': options.key ?? a.testKey };
  if (options.idem) headers['idempotency-key'] = options.idem;
  const url = `${options.prefix ?? ''}${REFUND}`;
  const how = options.how ?? 'json';
  const text = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
  if (how === 'query') return a.app.inject({ method: 'POST', url: `${url}?${text}`, headers });
  if (how === 'form')
    return a.app.inject({
      method: 'POST',
      url,
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      payload: text,
    });
  return a.app.inject({ method: 'POST', url, headers, payload: params as Record<string, string> });
}

async function refunded(
  a: TestApp,
  params: Record<string, unknown>,
  options: Parameters<typeof refund>[2] = {},
): Promise<Refunded> {
  const res = await refund(a, params, options);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as Refunded;
}

const refundRows = (a: TestApp, trxid: string) =>
  a.deps.db.selectFrom('refunds').selectAll().where('transaction_id', '=', trxid).orderBy('created_at').execute();
const transactionRow = (a: TestApp, trxid: string) =>
  a.deps.db.selectFrom('transactions').selectAll().where('id', '=', trxid).executeTakeFirstOrThrow();
const eventsOf = (a: TestApp, trxid: string) =>
  a.deps.db.selectFrom('events').selectAll().where('transaction_id', '=', trxid).orderBy('created_at').execute();

/** The app alone, then with a second app on the same database (its own connection and state). */
async function oneAppThenTwo(a: TestApp): Promise<FastifyInstance[][]> {
  const second = await buildApp({
    deps: {
      ...a.deps,
      db: openDatabase(a.databaseUrl, { connectTimeoutMs: a.config.databaseConnectTimeoutMs }),
      state: newServiceState(),
    },
  });
  await second.ready();
  cleanups.push(async () => {
    await second.close();
  });
  return [[a.app], [a.app, second]];
}

/**
 * For refunds sent together to one transaction: on PostgreSQL each waits for its row's lock holding a
 * pooled connection, so the wait for a connection is set past any machine's pace (5 s by default).
 */
const QUEUED_ON_ONE_ROW = { DATABASE_CONNECT_TIMEOUT_MS: '120000' };

/** `count` refunds sent together, spread over `apps` in turn. */
function refundsAtOnce(
  apps: FastifyInstance[],
  key: string,
  count: number,
  payload: (i: number) => Record<string, unknown>,
) {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      apps[i % apps.length]!.inject({
        method: 'POST',
        url: REFUND,
        headers: { 'x-api-key': key },
        payload: payload(i),
      }),
    ),
  );
}

describe('refunds of a code made from the static QRIS (a record)', () => {
  it('refund_status tells a partly and a fully refunded transaction apart; its status stays paid', async () => {
    const a = await app();
    const tx = await paid(a);
    expect(tx.refund_status).toBe('none');
    const part = await refunded(a, { trxid: tx.trxid, reason: 'one item', amount: 1000 });
    expect([part.status, part.refund_status]).toEqual(['paid', 'partial']);
    expect((await status(a, tx.trxid)).refund_status).toBe('partial');
    const rest = await refunded(a, { trxid: tx.trxid, reason: 'the rest' });
    expect([rest.status, rest.refund_status]).toEqual(['paid', 'full']);
    expect(await status(a, tx.trxid)).toMatchObject({
      status: 'paid',
      refund_status: 'full',
      refunded_amount: tx.amount_paid,
    });
  });

  it('a full refund by default: recorded at once, said plainly, audited, with its event; nothing remains after it', async () => {
    const a = await app();
    const tx = await paid(a);
    expect(tx.refunded_amount).toBe(0);
    expect(tx.refunds).toEqual([]);
    const before = a.clock.now();
    const body = await refunded(a, { trxid: tx.trxid, reason: '  out of stock  ', reference: 'TRF-001' });
    expect(body.status).toBe('paid');
    expect(body.refunded_amount).toBe(tx.amount_paid);
    expect(body.refund).toMatchObject({
      amount: tx.amount_paid,
      status: 'succeeded',
      reason: 'out of stock',
      reference: 'TRF-001',
      recorded: true,
      error_code: null,
    });
    expect(body.refund.id).toMatch(/^rf_/);
    expect(Date.parse(body.refund.completed_at!)).toBe(before);
    expect(body.refund.note).toContain('moved no money');
    expect(body.refunds.map((r) => r.id)).toEqual([body.refund.id]);

    const shown = await status(a, tx.trxid);
    expect(shown.refunded_amount).toBe(tx.amount_paid);
    expect(shown.refunds).toEqual(body.refunds);

    const audit = await a.deps.db.selectFrom('audit_log').selectAll().where('subject_id', '=', tx.trxid).execute();
    expect(audit.map((r) => r.action)).toEqual(['transaction.refund']);
    expect(audit[0]!.actor).toMatch(/^api_key:key_/);
    const events = await eventsOf(a, tx.trxid);
    expect(events.map((e) => e.type)).toEqual(['transaction.paid', 'refund.succeeded']);
    const payload = JSON.parse(events[1]!.payload);
    expect(payload.data).toMatchObject({
      trxid: tx.trxid,
      refunded_amount: tx.amount_paid,
      refund: { id: body.refund.id, recorded: true },
    });

    await expectError(
      await refund(a, { trxid: tx.trxid, reason: 'again', amount: 1 }),
      409,
      'refund_exceeds_remaining',
    );
    await expectError(await refund(a, { trxid: tx.trxid, reason: 'again' }), 409, 'refund_exceeds_remaining');
    expect(await refundRows(a, tx.trxid)).toHaveLength(1);
  });

  it('partial refunds by JSON, form, query and under /api/api, repeated up to the paid amount; one more rupiah is refused and changes nothing', async () => {
    const a = await app();
    const tx = await paid(a);
    const first = 1000;
    const second = 2500;
    const third = tx.amount_paid - first - second;
    const r1 = await refunded(a, { trxid: tx.trxid, amount: first, reason: 'one item' });
    expect(r1.refunded_amount).toBe(first);
    const r2 = await refunded(a, { trxid: tx.trxid, amount: String(second), reason: 'another item' }, { how: 'form' });
    expect(r2.refunded_amount).toBe(first + second);
    const r3 = await refunded(
      a,
      { trxid: tx.trxid, amount: third, reason: 'the rest' },
      { how: 'query', prefix: '/api' },
    );
    expect(r3.refunded_amount).toBe(tx.amount_paid);
    expect(r3.refunds.map((r) => r.amount)).toEqual([first, second, third]);

    const row = await transactionRow(a, tx.trxid);
    const res = await refund(a, { trxid: tx.trxid, amount: 1, reason: 'too much' });
    await expectError(res, 409, 'refund_exceeds_remaining');
    expect(res.json().error.message).toContain('0 remains');
    expect(await transactionRow(a, tx.trxid)).toEqual(row);
    expect(await refundRows(a, tx.trxid)).toHaveLength(3);
  });

  it('over the remainder is refused with what remains, and nothing changes', async () => {
    const a = await app();
    const tx = await paid(a);
    await refunded(a, { trxid: tx.trxid, amount: 4000, reason: 'part' });
    const res = await refund(a, { trxid: tx.trxid, amount: tx.amount_paid - 3999, reason: 'too much' });
    await expectError(res, 409, 'refund_exceeds_remaining');
    expect(res.json().error.message).toContain(`${tx.amount_paid - 4000} remains`);
    const row = await transactionRow(a, tx.trxid);
    expect(row).toMatchObject({ refunded_amount: 4000, refund_held: 0, refund_count: 1 });
  });

  it("refuses what is not paid, another merchant's transaction, bad input and GET, without a 5xx", async () => {
    const a = await app();
    const pending = await create<Tx>(a.app, a.testKey);
    await expectError(await refund(a, { trxid: pending.trxid, reason: 'x' }), 409, 'transaction_not_paid');
    const cancelled = await create<Tx>(a.app, a.testKey);
    await a.app.inject({ url: `${API_BASE}/cancel?trxid=${cancelled.trxid}`, headers: { 'x-api-key': a.testKey } });
    await expectError(await refund(a, { trxid: cancelled.trxid, reason: 'x' }), 409, 'transaction_not_paid');

    const other = await seedMerchant(a.deps, 1, 'Other');
    const theirs = await paid(a, other.testKey, other.merchant.id);
    await expectError(await refund(a, { trxid: theirs.trxid, reason: 'x' }), 404, 'transaction_not_found');
    // The same merchant's other mode is another world too.
    await expectError(
      await refund(a, { trxid: theirs.trxid, reason: 'x' }, { key: other.liveKey }),
      404,
      'transaction_not_found',
    );

    const tx = await paid(a);
    for (const [params, param] of [
      [{ trxid: tx.trxid }, 'reason'],
      [{ trxid: tx.trxid, reason: '   ' }, 'reason'],
      [{ trxid: tx.trxid, reason: 'x'.repeat(257) }, 'reason'],
      [{ trxid: tx.trxid, reason: 'a\u0001b' }, 'reason'],
      [{ trxid: tx.trxid, reason: 'x', amount: 0 }, 'amount'],
      [{ trxid: tx.trxid, reason: 'x', amount: -5 }, 'amount'],
      [{ trxid: tx.trxid, reason: 'x', amount: 1.5 }, 'amount'],
      [{ trxid: tx.trxid, reason: 'x', amount: '1e3' }, 'amount'],
      [{ trxid: tx.trxid, reason: 'x', amount: '99999999999999999999' }, 'amount'],
      [{ trxid: tx.trxid, reason: 'x', reference: 'r'.repeat(129) }, 'reference'],
      [{ reason: 'x' }, 'trxid'],
      [{ trxid: 'nope', reason: 'x' }, 'trxid'],
    ] as const) {
      const res = await refund(a, params);
      await expectError(res, 400, 'invalid_parameter');
      expect(res.json().error.param, JSON.stringify(params)).toBe(param);
    }
    await expectError(
      await refund(a, { trxid: tx.trxid, reason: 'x' }, { idem: ' bad key ' }),
      400,
      'invalid_parameter',
    );
    const get = await a.app.inject({
      url: `${REFUND}?trxid=${tx.trxid}&reason=x`,
      headers: { 'x-api-key': a.testKey },
    });
    expect(get.statusCode).toBe(405);
    expect(await refundRows(a, tx.trxid)).toHaveLength(0);
  });
});

describe('what a refund may say to the payer (issue 35, finding 2)', () => {
  it('a reason or reference with a URL, a domain, an e-mail or IP address is a 400 naming it, however spelled; nothing is refunded', async () => {
    const a = await app();
    const tx = await paid(a);
    const links = [
      'see https://evil.example/verify',
      'evil.example',
      'x@evil.example',
      '10.0.0.1',
      'see evil\uFF0Eexample/verify',
      'see evil\u3002example',
      'see evil\u200B.example/verify',
      'see e\u200Bvil.ex\u200Dample',
    ];
    for (const reason of links) {
      for (const how of ['json', 'form', 'query'] as const) {
        const res = await refund(a, { trxid: tx.trxid, amount: 1, reason }, { how });
        await expectError(res, 400, 'invalid_parameter');
        expect(res.json().error.param, `${how} ${reason}`).toBe('reason');
        expect(res.json().error.message).toMatch(/link or an address/);
      }
      const res = await refund(a, { trxid: tx.trxid, amount: 1, reason: 'Barang habis', reference: reason });
      await expectError(res, 400, 'invalid_parameter');
      expect(res.json().error.param, reason).toBe('reference');
    }
    expect(await refundRows(a, tx.trxid)).toHaveLength(0);
    expect(await transactionRow(a, tx.trxid)).toMatchObject({ refunded_amount: 0, refund_held: 0, refund_count: 0 });

    // Ordinary reasons, amounts with thousands dots included, are kept as typed.
    const ordinary = ['Barang habis', 'Salah harga, kembalikan 5.000', 'Rp 10.000', 'Rp1.500'];
    for (const reason of ordinary)
      expect((await refunded(a, { trxid: tx.trxid, amount: 1, reason, reference: 'TRF 1.234' })).refund.reason).toBe(
        reason,
      );
    expect((await refundRows(a, tx.trxid)).map((r) => r.reason)).toEqual(ordinary);
  });
});

describe('idempotency and concurrency', () => {
  it('the same Idempotency-Key and request answers the same refund; with another request it is a 409', async () => {
    const a = await app();
    const tx = await paid(a);
    const first = await refund(a, { trxid: tx.trxid, amount: 1000, reason: 'r' }, { idem: 'refund-1' });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await refund(a, { trxid: tx.trxid, amount: 1000, reason: 'r' }, { idem: 'refund-1', how: 'form' });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data.refund.id).toBe(first.json().data.refund.id);
    expect(again.json().data.refunded_amount).toBe(1000);
    await expectError(
      await refund(a, { trxid: tx.trxid, amount: 2000, reason: 'r' }, { idem: 'refund-1' }),
      409,
      'idempotency_key_reused',
    );
    await expectError(
      await refund(a, { trxid: tx.trxid, amount: 1000, reason: 'other' }, { idem: 'refund-1' }),
      409,
      'idempotency_key_reused',
    );
    expect(await refundRows(a, tx.trxid)).toHaveLength(1);
    // Another key is another refund.
    await refunded(a, { trxid: tx.trxid, amount: 1000, reason: 'r' }, { idem: 'refund-2' });
    expect((await transactionRow(a, tx.trxid)).refunded_amount).toBe(2000);
  });

  it('ten concurrent first uses of one key make one refund, all answering it', async () => {
    const a = await app();
    const tx = await paid(a);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => refund(a, { trxid: tx.trxid, amount: 3000, reason: 'r' }, { idem: 'race' })),
    );
    for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    expect(new Set(answers.map((r) => r.json().data.refund.id)).size).toBe(1);
    expect(await refundRows(a, tx.trxid)).toHaveLength(1);
    expect((await transactionRow(a, tx.trxid)).refunded_amount).toBe(3000);
  });

  it('20 concurrent refunds never sum over what was paid, on one app and on two apps sharing the database', async () => {
    const a = await app(QUEUED_ON_ONE_ROW);
    for (const apps of await oneAppThenTwo(a)) {
      const tx = await paid(a);
      // Six slices fit in what was paid and a seventh does not, whatever the amount (its unique code
      // varies): 20 asks, so 14 must be refused. A fixed slice of 3000 let all 20 fit once a paid amount
      // reached 60 000, and the test then expected 21.
      const slice = Math.floor(tx.amount_paid / 7) + 1;
      const answers = await refundsAtOnce(apps, a.testKey, 20, (i) => ({
        trxid: tx.trxid,
        amount: slice,
        reason: `r${i}`,
      }));
      const ok = answers.filter((r) => r.statusCode === 200);
      for (const r of answers.filter((r) => r.statusCode !== 200))
        await expectError(r, 409, 'refund_exceeds_remaining');
      expect(ok).toHaveLength(6);
      const row = await transactionRow(a, tx.trxid);
      expect(row.refunded_amount).toBe(ok.length * slice);
      expect(row.refund_held).toBe(0);
      expect(row.refunded_amount).toBeLessThanOrEqual(tx.amount_paid);
      const rows = await refundRows(a, tx.trxid);
      expect(rows).toHaveLength(ok.length);
      expect(row.refund_count).toBe(ok.length);
    }
  });
});

describe('how many refunds one transaction may have (issue 35, finding 2)', () => {
  it('30 concurrent 1-rupiah refunds of one transaction: exactly 20 (the default bound) land, the rest are 409 refund_limit_reached; on one app and two sharing the database', async () => {
    const a = await app(QUEUED_ON_ONE_ROW);
    for (const apps of await oneAppThenTwo(a)) {
      const tx = await paid(a);
      const answers = await refundsAtOnce(apps, a.testKey, 30, (i) => ({
        trxid: tx.trxid,
        amount: 1,
        reason: `r${i}`,
      }));
      const ok = answers.filter((r) => r.statusCode === 200);
      expect(ok).toHaveLength(20);
      for (const r of answers.filter((r) => r.statusCode !== 200)) await expectError(r, 409, 'refund_limit_reached');
      expect(await refundRows(a, tx.trxid)).toHaveLength(20);
      expect(await transactionRow(a, tx.trxid)).toMatchObject({
        refunded_amount: 20,
        refund_held: 0,
        refund_count: 20,
      });
    }
  });

  it('REFUND_MAX_PER_TRANSACTION sets the bound; past it a refund is refused although money remains, and nothing changes', async () => {
    const a = await app({ REFUND_MAX_PER_TRANSACTION: '3' });
    const tx = await paid(a);
    for (let i = 0; i < 3; i++) await refunded(a, { trxid: tx.trxid, amount: 100, reason: `part ${i}` });
    const res = await refund(a, { trxid: tx.trxid, amount: 100, reason: 'one more' });
    await expectError(res, 409, 'refund_limit_reached');
    expect(res.json().error.message).toContain('3 refunds');
    expect(await transactionRow(a, tx.trxid)).toMatchObject({ refunded_amount: 300, refund_held: 0, refund_count: 3 });
    // An amount over what remains is still named as such.
    await expectError(
      await refund(a, { trxid: tx.trxid, amount: tx.amount_paid, reason: 'all' }),
      409,
      'refund_exceeds_remaining',
    );
    // Another transaction has its own count.
    const other = await paid(a);
    await refunded(a, { trxid: other.trxid, amount: 100, reason: 'ok' });
  });
});

describe('refund events', () => {
  it('refund.succeeded reaches a loopback receiver with Standard Webhooks headers', async () => {
    const a = await app();
    const receiver = await Receiver.start();
    cleanups.push(() => receiver.close());
    const endpoint = await addWebhookEndpoint(a.deps, {
      merchantId: a.merchant.id,
      url: receiver.url(),
      events: ['refund.succeeded', 'refund.failed'],
    });
    const tx = await paid(a);
    const body = await refunded(a, { trxid: tx.trxid, amount: 1000, reason: 'broken' });
    await dispatchDueDeliveries(a.deps, { random: () => 0.5, concurrency: 4 });
    expect(receiver.requests).toHaveLength(1);
    const request = receiver.requests[0]!;
    verifyStandardWebhook({
      payload: request.body,
      headers: {
        id: request.headers['webhook-id'],
        timestamp: request.headers['webhook-timestamp'],
        signature: request.headers['webhook-signature'],
      },
      secret: endpoint.secret,
      now: a.clock.now(),
    });
    const event = JSON.parse(request.body);
    expect(event.type).toBe('refund.succeeded');
    expect(event.data).toMatchObject({
      trxid: tx.trxid,
      refunded_amount: 1000,
      refund: { id: body.refund.id, amount: 1000, status: 'succeeded', reason: 'broken' },
    });
    expect(event.data.refunds).toHaveLength(1);
  });
});

/** An acquirer's issuer whose answers the test scripts, recording every ask. */
class ScriptedIssuer implements CodeIssuer {
  refunds = 'acquirer' as const;
  asks: IssuerRefund[] = [];
  answers: Array<IssuerRefundOutcome | 'unavailable'> = [];
  issue: CodeIssuer['issue'] = async () => {
    throw new Error('not used');
  };
  cancel: CodeIssuer['cancel'] = async () => 'cancelled';
  refund = async (_deps: unknown, _tx: unknown, refund: IssuerRefund): Promise<IssuerRefundOutcome> => {
    this.asks.push(refund);
    const next = this.answers.shift();
    if (next === undefined) throw new Error('no answer scripted');
    if (next === 'unavailable') throw new AppError('acquirer_unavailable', 'the acquirer timed out', { retryAfter: 5 });
    return next;
  };
}

async function acquirerApp(): Promise<{ a: TestApp; issuer: ScriptedIssuer }> {
  const a = await app();
  const issuer = new ScriptedIssuer();
  a.deps.issuers = { forMerchant: codeIssuers.forMerchant, forTransaction: async () => issuer };
  return { a, issuer };
}

describe("refunds asked of an acquirer (an issuer of the test's own)", () => {
  it("succeeded at once: the acquirer's reference and time", async () => {
    const { a, issuer } = await acquirerApp();
    const tx = await paid(a);
    const at = a.clock.now() - 5000;
    issuer.answers.push({ status: 'succeeded', reference: 'ACQ-REF-1', completedAt: at });
    const body = await refunded(a, { trxid: tx.trxid, amount: 2000, reason: 'r', reference: 'ignored' });
    expect(body.refund).toMatchObject({ status: 'succeeded', recorded: false, reference: 'ACQ-REF-1', amount: 2000 });
    expect(Date.parse(body.refund.completed_at!)).toBe(at);
    expect(body.refunded_amount).toBe(2000);
    expect(issuer.asks).toEqual([{ id: body.refund.id, amount: 2000, reason: 'r' }]);
    expect((await transactionRow(a, tx.trxid)).refund_held).toBe(0);
  });

  it('"in progress" stays pending with its amount held, then the resolver asks again with the same id until it succeeds', async () => {
    const { a, issuer } = await acquirerApp();
    const tx = await paid(a);
    issuer.answers.push({ status: 'in_progress', reference: 'ACQ-2' }, { status: 'in_progress', reference: null });
    const body = await refunded(a, { trxid: tx.trxid, reason: 'all of it' }, { idem: 'k1' });
    expect(body.refund).toMatchObject({
      status: 'pending',
      amount: tx.amount_paid,
      reference: 'ACQ-2',
      completed_at: null,
    });
    expect(body.refunded_amount).toBe(0);
    expect(await transactionRow(a, tx.trxid)).toMatchObject({ refunded_amount: 0, refund_held: tx.amount_paid });
    // Held: nothing more can be refunded meanwhile.
    await expectError(await refund(a, { trxid: tx.trxid, amount: 1, reason: 'more' }), 409, 'refund_exceeds_remaining');
    // A retry with its key answers the same pending refund.
    const replay = await refunded(a, { trxid: tx.trxid, reason: 'all of it' }, { idem: 'k1' });
    expect(replay.refund).toMatchObject({ id: body.refund.id, status: 'pending' });

    expect(await resolveDueRefunds(a.deps)).toBe(0); // not due yet
    a.clock.advance(31_000);
    expect(await resolveDueRefunds(a.deps)).toBe(1);
    expect((await status(a, tx.trxid)).refunds[0]!.status).toBe('pending');
    a.clock.advance(61_000);
    issuer.answers.push({ status: 'succeeded', reference: null, completedAt: a.clock.now() });
    expect(await resolveDueRefunds(a.deps)).toBe(1);
    expect(issuer.asks.map((r) => r.id)).toEqual([body.refund.id, body.refund.id, body.refund.id]);
    const after = await status(a, tx.trxid);
    expect(after.refunded_amount).toBe(tx.amount_paid);
    expect(after.refunds[0]).toMatchObject({ status: 'succeeded', reference: 'ACQ-2' });
    expect(await transactionRow(a, tx.trxid)).toMatchObject({ refund_held: 0 });
    expect((await eventsOf(a, tx.trxid)).map((e) => e.type)).toEqual(['transaction.paid', 'refund.succeeded']);
    a.clock.advance(3_600_000);
    expect(await resolveDueRefunds(a.deps)).toBe(0);
  });

  it('a refusal is a 422, kept as failed with its event, and the held amount is given back', async () => {
    const { a, issuer } = await acquirerApp();
    const tx = await paid(a);
    issuer.answers.push({ status: 'refused', code: 'refund_refused', message: 'issuer declined' });
    const res = await refund(a, { trxid: tx.trxid, reason: 'r' }, { idem: 'k-refused' });
    await expectError(res, 422, 'refund_refused');
    const [row] = await refundRows(a, tx.trxid);
    expect(row).toMatchObject({ status: 'failed', error_code: 'refund_refused', error_message: 'issuer declined' });
    expect(await transactionRow(a, tx.trxid)).toMatchObject({ refunded_amount: 0, refund_held: 0, refund_count: 1 });
    expect((await eventsOf(a, tx.trxid)).map((e) => e.type)).toEqual(['transaction.paid', 'refund.failed']);
    // Its key answers the same refusal again; the amount is free for another refund.
    await expectError(await refund(a, { trxid: tx.trxid, reason: 'r' }, { idem: 'k-refused' }), 422, 'refund_refused');
    issuer.answers.push({ status: 'succeeded', reference: 'ok', completedAt: a.clock.now() });
    expect((await refunded(a, { trxid: tx.trxid, reason: 'again' })).refunded_amount).toBe(tx.amount_paid);
    const shown = await status(a, tx.trxid);
    expect(shown.refunds.map((r) => [r.status, r.error_code])).toEqual([
      ['failed', 'refund_refused'],
      ['succeeded', null],
    ]);
  });

  it('no answer is a 503 with Retry-After: the refund stays pending, nothing counted as refunded, until the resolver gets a final answer', async () => {
    const { a, issuer } = await acquirerApp();
    const tx = await paid(a);
    issuer.answers.push('unavailable');
    const res = await refund(a, { trxid: tx.trxid, amount: 5000, reason: 'r' });
    await expectError(res, 503, 'acquirer_unavailable');
    expect(res.headers['retry-after']).toBeDefined();
    const [row] = await refundRows(a, tx.trxid);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, amount: 5000 });
    expect(row!.next_attempt_at).toBe(a.clock.now() + 30_000);
    expect(await transactionRow(a, tx.trxid)).toMatchObject({ refunded_amount: 0, refund_held: 5000 });
    expect((await status(a, tx.trxid)).refunded_amount).toBe(0);
    expect((await eventsOf(a, tx.trxid)).map((e) => e.type)).toEqual(['transaction.paid']);

    // Still no answer: asked later, backing off.
    a.clock.advance(30_000);
    issuer.answers.push('unavailable');
    expect(await resolveDueRefunds(a.deps)).toBe(1);
    const later = (await refundRows(a, tx.trxid))[0]!;
    expect(later).toMatchObject({ status: 'pending', attempts: 2 });
    expect(later.next_attempt_at).toBe(a.clock.now() + 60_000);

    a.clock.advance(60_000);
    issuer.answers.push({ status: 'succeeded', reference: 'late', completedAt: a.clock.now() });
    expect(await resolveDueRefunds(a.deps)).toBe(1);
    expect(new Set(issuer.asks.map((r) => r.id)).size).toBe(1);
    expect(await transactionRow(a, tx.trxid)).toMatchObject({ refunded_amount: 5000, refund_held: 0 });
    expect((await refundRows(a, tx.trxid))[0]).toMatchObject({ status: 'succeeded', attempts: 3, reference: 'late' });
  });

  it('the resolver worker, running on its own, settles a refund the acquirer did not answer', async () => {
    const { a, issuer } = await acquirerApp();
    const tx = await paid(a);
    issuer.answers.push('unavailable', { status: 'succeeded', reference: 'W-1', completedAt: a.clock.now() });
    await expectError(await refund(a, { trxid: tx.trxid, amount: 2000, reason: 'r' }), 503, 'acquirer_unavailable');
    const worker = startRefundResolver(a.deps, 20);
    cleanups.push(() => worker.stop());
    a.clock.advance(30_000);
    const deadline = Date.now() + 10_000;
    while ((await transactionRow(a, tx.trxid)).refunded_amount !== 2000) {
      if (Date.now() > deadline) throw new Error('the resolver did not settle the refund in time');
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await refundRows(a, tx.trxid))[0]).toMatchObject({ status: 'succeeded', reference: 'W-1' });
  });
});
