import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { expireDue } from '../../../src/services/transactions/expire-due.js';
import { encodeCursor } from '../../../src/domain/transaction-cursor.js';
import { createTestApp, seedMerchant, type Seeded, type TestApp } from '../../helpers/context.js';
import { create, CSTATUS } from '../../helpers/api.js';
import { expectError } from '../../helpers/http-assertions.js';

interface Tx {
  trxid: string;
  status: string;
  mode: string;
  amount: number;
  unique_code: number;
  total_amount: number;
  created_at: string;
  expires_at: string;
  paid_at: string | null;
  paid_late: boolean;
  payment: null | Record<string, unknown>;
  [k: string]: unknown;
}

interface Page {
  items: Tx[];
  next_cursor: string | null;
  has_more: boolean;
}

let t: TestApp;
let other: Seeded;

beforeAll(async () => {
  t = await createTestApp();
  other = await seedMerchant(t.deps, 1, 'Other Merchant');
});
afterAll(async () => t.close());

function status(
  key: string,
  query: Record<string, string> | string = {},
  prefix = '',
): Promise<LightMyRequestResponse> {
  const qs = typeof query === 'string' ? query : new URLSearchParams(query).toString();
  return t.app.inject({ url: `${prefix}${CSTATUS}?${qs}`, headers: { 'x-api-key': key } });
}

async function page(key: string, query: Record<string, string> = {}): Promise<Page> {
  const res = await status(key, query);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().success).toBe(true);
  return res.json().data as Page;
}

async function pay(key: string, trxid: string): Promise<Tx> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/payment-gateway/simulate?trxid=${trxid}`,
    headers: { 'x-api-key': key },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as Tx;
}

/** A fresh merchant, so a list test sees only its own transactions. */
const freshMerchant = (name: string): Promise<Seeded> => seedMerchant(t.deps, 2, name);

describe('cstatus by trxid', () => {
  it("returns the caller's transaction with the same fields as when created", async () => {
    const created = await create<Tx>(t.app, t.testKey, { email: 'budi@example.com', ref: 'ST-1' });
    const res = await status(t.testKey, { trxid: created.trxid });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-api-version']).toBe('1.0.0');
    expect(res.json()).toEqual({ success: true, data: created });
  });

  it('accepts the key as the apikey parameter and answers under /api/api too', async () => {
    const created = await create<Tx>(t.app, t.testKey);
    const viaQuery = await t.app.inject({ url: `${CSTATUS}?apikey=${t.testKey}&trxid=${created.trxid}` });
    expect(viaQuery.statusCode).toBe(200);
    expect(viaQuery.json().data).toEqual(created);
    const doubled = await status(t.testKey, { trxid: created.trxid }, '/api');
    expect(doubled.statusCode).toBe(200);
    expect(doubled.json().data).toEqual(created);
    const doubledList = await status(t.testKey, { limit: '1' }, '/api');
    expect(doubledList.statusCode).toBe(200);
    expect(doubledList.json().data.items).toHaveLength(1);
  });

  it("another merchant's trxid is 404 transaction_not_found, never 403", async () => {
    const theirs = await create<Tx>(t.app, other.testKey);
    expectError(await status(t.testKey, { trxid: theirs.trxid }), 404, 'transaction_not_found', 'trxid');
    // And the owner still sees it.
    expect((await status(other.testKey, { trxid: theirs.trxid })).statusCode).toBe(200);
  });

  it("the same merchant's other mode is 404 both ways", async () => {
    const test = await create<Tx>(t.app, t.testKey);
    const live = await create<Tx>(t.app, t.liveKey);
    expectError(await status(t.liveKey, { trxid: test.trxid }), 404, 'transaction_not_found', 'trxid');
    expectError(await status(t.testKey, { trxid: live.trxid }), 404, 'transaction_not_found', 'trxid');
    expect((await status(t.liveKey, { trxid: live.trxid })).json().data.mode).toBe('live');
  });

  it('an unknown well-formed trxid is 404', async () => {
    expectError(await status(t.testKey, { trxid: `trx_${'0'.repeat(22)}` }), 404, 'transaction_not_found', 'trxid');
  });

  it.each(['abc', 'trx_', 'trx_abc-def', 'TRX_abcdefghijklmnopqrstuv', `trx_${'a'.repeat(65)}`, "trx_a' OR 1=1"])(
    'a malformed trxid %j is 400 invalid_parameter',
    async (trxid) => {
      expectError(await status(t.testKey, { trxid }), 400, 'invalid_parameter', 'trxid');
    },
  );

  it('a pending transaction past its expiry reads as expired before any sweep', async () => {
    const created = await create<Tx>(t.app, t.testKey, { expires_in: '60' });
    t.clock.advance(59_999);
    expect((await status(t.testKey, { trxid: created.trxid })).json().data.status).toBe('pending');
    t.clock.advance(1);
    const res = await status(t.testKey, { trxid: created.trxid });
    expect(res.json().data.status).toBe('expired');
    // Nothing was written yet: the stored row is still pending until the sweeper runs.
    const before = await t.deps.db
      .selectFrom('transactions')
      .select('status')
      .where('id', '=', created.trxid)
      .executeTakeFirstOrThrow();
    expect(before.status).toBe('pending');

    expect(await expireDue(t.deps)).toBeGreaterThanOrEqual(1);
    const after = await t.deps.db
      .selectFrom('transactions')
      .selectAll()
      .where('id', '=', created.trxid)
      .executeTakeFirstOrThrow();
    expect(after.status).toBe('expired');
    expect(after.updated_at).toBe(t.clock.ms);
    expect((await status(t.testKey, { trxid: created.trxid })).json().data.status).toBe('expired');
    // A second sweep finds nothing more for this one.
    expect(await expireDue(t.deps)).toBe(0);
  });

  it('a paid transaction shows the payment details and paid_at', async () => {
    const created = await create<Tx>(t.app, t.testKey);
    t.clock.advance(5_000);
    const paidAt = new Date(t.clock.ms).toISOString();
    await pay(t.testKey, created.trxid);
    const tx = (await status(t.testKey, { trxid: created.trxid })).json().data as Tx;
    expect(tx.status).toBe('paid');
    expect(tx.paid_at).toBe(paidAt);
    expect(tx.paid_late).toBe(false);
    expect(tx.payment).toEqual({
      id: expect.stringMatching(/^pay_/),
      source: 'simulator',
      amount: created.total_amount,
      paid_at: paidAt,
      reference: `SIM-${created.trxid.slice(4, 16)}`,
      issuer: 'SIMULATOR',
      payer_name: 'Sandbox Payer',
    });
    // What changes with the payment: its status, time and details, and the amount received; everything
    // else is as created.
    expect(tx.amount_paid).toBe(tx.total_amount);
    const { status: _s, paid_at: _p, payment: _pm, amount_paid: _ap, ...rest } = tx;
    const { status: _s2, paid_at: _p2, payment: _pm2, amount_paid: _ap2, ...createdRest } = created;
    expect(rest).toEqual(createdRest);
  });
});

describe('cstatus list', () => {
  it('lists newest first with a default page of 20', async () => {
    const m = await freshMerchant('Lister');
    const made: Tx[] = [];
    for (let i = 0; i < 25; i++) {
      made.push(await create<Tx>(t.app, m.testKey));
      t.clock.advance(1000);
    }
    const first = await page(m.testKey);
    expect(first.items).toHaveLength(20);
    expect(first.has_more).toBe(true);
    expect(first.next_cursor).toEqual(expect.any(String));
    expect(first.items.map((i) => i.trxid)).toEqual(
      made
        .slice(5)
        .reverse()
        .map((i) => i.trxid),
    );
    // The list items are the full transaction view.
    expect(first.items[0]).toEqual(made[24]);
  });

  it.each(['0', '101', 'abc', '-1', '1.5', '1e1', ' 5'])('limit=%j is 400 invalid_parameter', async (limit) => {
    expectError(await status(t.testKey, { limit }), 400, 'invalid_parameter', 'limit');
  });

  it('limit 1 and 100 are accepted', async () => {
    const m = await freshMerchant('Limits');
    for (let i = 0; i < 3; i++) await create<Tx>(t.app, m.testKey);
    const one = await page(m.testKey, { limit: '1' });
    expect(one.items).toHaveLength(1);
    expect(one.has_more).toBe(true);
    const hundred = await page(m.testKey, { limit: '100' });
    expect(hundred.items).toHaveLength(3);
    expect(hundred.has_more).toBe(false);
    expect(hundred.next_cursor).toBeNull();
  });

  it('an empty list is an empty page', async () => {
    const m = await freshMerchant('Empty');
    expect(await page(m.testKey)).toEqual({ items: [], next_cursor: null, has_more: false });
  });

  it('walks 45 transactions in pages of 20 without duplicates or gaps, also with equal timestamps', async () => {
    const m = await freshMerchant('Pager');
    const made: Tx[] = [];
    for (let i = 0; i < 45; i++) {
      made.push(await create<Tx>(t.app, m.testKey));
      // Groups of three share a created_at, so the id must break ties in the order and the cursor.
      if (i % 3 === 2) t.clock.advance(1);
    }
    const seen: Tx[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    for (let guard = 0; guard < 10; guard++) {
      const p: Page = await page(m.testKey, { limit: '20', ...(cursor ? { cursor } : {}) });
      sizes.push(p.items.length);
      seen.push(...p.items);
      expect(p.has_more).toBe(p.next_cursor !== null);
      cursor = p.next_cursor;
      if (!cursor) break;
      // A transaction created mid-walk appears at the head, not in the pages still to come.
      if (guard === 0) {
        t.clock.advance(10);
        await create<Tx>(t.app, m.testKey);
      }
    }
    expect(sizes).toEqual([20, 20, 5]);
    const ids = seen.map((i) => i.trxid);
    expect(new Set(ids).size).toBe(45);
    expect(new Set(ids)).toEqual(new Set(made.map((i) => i.trxid)));

    // Newest first: created_at descending, ties by trxid descending.
    for (let i = 1; i < seen.length; i++) {
      const a = seen[i - 1]!;
      const b = seen[i]!;
      const ta = Date.parse(a.created_at);
      const tb = Date.parse(b.created_at);
      expect(ta).toBeGreaterThanOrEqual(tb);
      if (ta === tb) expect(a.trxid > b.trxid).toBe(true);
    }
  });

  it.each([
    ['garbage!', 'not base64url'],
    ['Zm9v', 'base64url of "foo"'],
    [Buffer.from('123:abc').toString('base64url'), 'not a trxid inside'],
    [Buffer.from('x:trx_abc').toString('base64url'), 'not a timestamp inside'],
    ['A'.repeat(201), 'too long'],
  ])('a bad cursor %j (%s) is 400 invalid_parameter', async (cursor) => {
    expectError(await status(t.testKey, { cursor }), 400, 'invalid_parameter', 'cursor');
  });

  it("a cursor never reaches across merchants: another merchant's rows stay out of the page", async () => {
    const m = await freshMerchant('Cursor Owner');
    await create<Tx>(t.app, m.testKey);
    const theirs = await create<Tx>(t.app, other.testKey);
    const forged = encodeCursor(Date.parse(theirs.created_at) + 1, 'trx_zzzzzzzzzzzzzzzzzzzzzz');
    const p = await page(m.testKey, { cursor: forged });
    expect(p.items.every((i) => i.trxid !== theirs.trxid)).toBe(true);
    expect(p.items).toHaveLength(1);
  });

  it("lists only the caller's merchant and mode", async () => {
    const m = await freshMerchant('Separated');
    const test = await create<Tx>(t.app, m.testKey);
    const live = await create<Tx>(t.app, m.liveKey);
    await create<Tx>(t.app, other.testKey);
    expect((await page(m.testKey)).items.map((i) => i.trxid)).toEqual([test.trxid]);
    expect((await page(m.liveKey)).items.map((i) => i.trxid)).toEqual([live.trxid]);
  });

  it('filters by status, counting a pending transaction past expiry as expired', async () => {
    const m = await freshMerchant('Filter');
    const soon = await create<Tx>(t.app, m.testKey, { expires_in: '60' });
    t.clock.advance(1);
    const paid = await create<Tx>(t.app, m.testKey, { expires_in: '60' });
    t.clock.advance(1);
    const open = await create<Tx>(t.app, m.testKey, { expires_in: '3600' });
    await pay(m.testKey, paid.trxid);

    const ids = async (s: string) => (await page(m.testKey, { status: s })).items.map((i) => i.trxid);
    expect(await ids('pending')).toEqual([open.trxid, soon.trxid]);
    expect(await ids('paid')).toEqual([paid.trxid]);
    expect(await ids('expired')).toEqual([]);

    t.clock.advance(60_000);
    expect(await ids('pending')).toEqual([open.trxid]);
    expect(await ids('expired')).toEqual([soon.trxid]);
    expect(await ids('paid')).toEqual([paid.trxid]);
    expect(await ids('cancelled')).toEqual([]);
    const all = (await page(m.testKey)).items;
    expect(Object.fromEntries(all.map((i) => [i.trxid, i.status]))).toEqual({
      [soon.trxid]: 'expired',
      [paid.trxid]: 'paid',
      [open.trxid]: 'pending',
    });

    // The sweeper makes it true in storage; the answers do not change.
    await expireDue(t.deps);
    const rows = await t.deps.db
      .selectFrom('transactions')
      .select(['id', 'status'])
      .where('merchant_id', '=', m.merchant.id)
      .execute();
    expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({
      [soon.trxid]: 'expired',
      [paid.trxid]: 'paid',
      [open.trxid]: 'pending',
    });
    expect(await ids('expired')).toEqual([soon.trxid]);
    expect(await ids('pending')).toEqual([open.trxid]);
  });

  it('the status filter pages too', async () => {
    const m = await freshMerchant('Filter Pager');
    const pending: string[] = [];
    for (let i = 0; i < 7; i++) {
      const tx = await create<Tx>(t.app, m.testKey);
      if (i % 2 === 0) await pay(m.testKey, tx.trxid);
      else pending.unshift(tx.trxid);
      t.clock.advance(1);
    }
    const first = await page(m.testKey, { status: 'pending', limit: '2' });
    expect(first.items.map((i) => i.trxid)).toEqual(pending.slice(0, 2));
    const second = await page(m.testKey, { status: 'pending', limit: '2', cursor: first.next_cursor! });
    expect(second.items.map((i) => i.trxid)).toEqual(pending.slice(2, 3));
    expect(second.has_more).toBe(false);
  });

  it('an unknown status is 400 invalid_parameter', async () => {
    expectError(await status(t.testKey, { status: 'done' }), 400, 'invalid_parameter', 'status');
  });

  it('paid transactions in the list carry their payment', async () => {
    const m = await freshMerchant('Paid Lister');
    const tx = await create<Tx>(t.app, m.testKey);
    await pay(m.testKey, tx.trxid);
    const [item] = (await page(m.testKey)).items;
    expect(item!.status).toBe('paid');
    expect(item!.paid_at).toEqual(expect.any(String));
    expect(item!.payment).toMatchObject({
      source: 'simulator',
      issuer: 'SIMULATOR',
      payer_name: 'Sandbox Payer',
      amount: tx.total_amount,
    });
  });
});
