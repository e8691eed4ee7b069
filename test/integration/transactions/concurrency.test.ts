import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, seedMerchant, type Seeded, type TestApp } from '../../helpers/context.js';
import { listeningPort } from '../../helpers/http-assertions.js';

interface Tx {
  trxid: string;
  amount: number;
  unique_code: number;
  total_amount: number;
  ref: string | null;
  mode: string;
}

interface Reply {
  status: number;
  headers: Headers;
  body: { success: boolean; data?: Tx & { items?: Tx[]; next_cursor?: string | null }; error?: { code: string } };
}

describe('concurrent requests over a real socket', () => {
  let t: TestApp;
  let other: Seeded;
  let base: string;

  async function call(path: string, init: RequestInit = {}): Promise<Reply> {
    const res = await fetch(base + path, init);
    return { status: res.status, headers: res.headers, body: (await res.json()) as Reply['body'] };
  }

  async function listAll(key: string): Promise<Tx[]> {
    const out: Tx[] = [];
    let cursor: string | null | undefined = null;
    do {
      const page: Reply = await call(`/api/payment-gateway/cstatus?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: { 'x-api-key': key },
      });
      expect(page.status).toBe(200);
      out.push(...page.body.data!.items!);
      cursor = page.body.data!.next_cursor;
    } while (cursor);
    return out;
  }

  beforeAll(async () => {
    t = await createTestApp();
    other = await seedMerchant(t.deps, 1, 'Other Merchant');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${listeningPort(t.app)}`;
  });
  afterAll(async () => t.close());

  it('100 concurrent creates of the same amount get 100 distinct totals and trxids', async () => {
    const replies = await Promise.all(
      Array.from({ length: 100 }, () =>
        call('/api/payment-gateway/cqris?amount=50000', { headers: { 'x-api-key': t.testKey } }),
      ),
    );
    for (const r of replies) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const txs = replies.map((r) => r.body.data!);
    expect(new Set(txs.map((x) => x.trxid)).size).toBe(100);
    expect(new Set(txs.map((x) => x.total_amount)).size).toBe(100);
    for (const x of txs) {
      expect(x.amount).toBe(50_000);
      expect(x.total_amount).toBe(50_000 + x.unique_code);
      expect(x.unique_code).toBeGreaterThanOrEqual(t.config.uniqueCodeMin);
      expect(x.unique_code).toBeLessThanOrEqual(t.config.uniqueCodeMax);
    }
    // What the database holds agrees with what was answered.
    const rows = await t.deps.db
      .selectFrom('transactions')
      .select(['id', 'total_amount'])
      .where('amount', '=', 50_000)
      .execute();
    expect(rows).toHaveLength(100);
    expect(new Set(rows.map((r) => r.id))).toEqual(new Set(txs.map((x) => x.trxid)));
    const reserved = await t.deps.db
      .selectFrom('reserved_totals')
      .select('total_amount')
      .where('total_amount', '>', 50_000)
      .where('total_amount', '<', 51_000)
      .execute();
    expect(reserved).toHaveLength(100);
  });

  it('30 concurrent creates with the same ref return one transaction', async () => {
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(`/api/payment-gateway/cqris?amount=60000&ref=order-race-1`, {
          headers: { 'x-api-key': t.testKey },
          ...(i % 2 === 1
            ? {
                method: 'POST',
                body: JSON.stringify({ amount: 60_000, ref: 'order-race-1' }),
                headers: { 'x-api-key': t.testKey, 'content-type': 'application/json' },
              }
            : {}),
        }),
      ),
    );
    for (const r of replies) expect([200, 201], JSON.stringify(r.body)).toContain(r.status);
    const ids = new Set(replies.map((r) => r.body.data!.trxid));
    expect(ids.size).toBe(1);
    expect(replies.every((r) => r.body.data!.ref === 'order-race-1')).toBe(true);
    // At most one of them created it (201 only for a POST that was not a replay).
    expect(replies.filter((r) => r.status === 201).length).toBeLessThanOrEqual(1);
    const rows = await t.deps.db.selectFrom('transactions').select('id').where('ref', '=', 'order-race-1').execute();
    expect(rows.map((r) => r.id)).toEqual([...ids]);
    // The losers' reservations were rolled back: one reserved total for this amount.
    const reserved = await t.deps.db
      .selectFrom('reserved_totals')
      .select('transaction_id')
      .where('total_amount', '>', 60_000)
      .where('total_amount', '<', 61_000)
      .execute();
    expect(reserved.map((r) => r.transaction_id)).toEqual([...ids]);

    // The same ref with another amount is a conflict, not a second transaction.
    const conflict = await call(`/api/payment-gateway/cqris?amount=60001&ref=order-race-1`, {
      headers: { 'x-api-key': t.testKey },
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error!.code).toBe('ref_conflict');
  });

  it('30 concurrent POSTs with the same Idempotency-Key create one transaction', async () => {
    const post = () =>
      fetch(`${base}/api/payment-gateway/cqris`, {
        method: 'POST',
        headers: { 'x-api-key': t.testKey, 'content-type': 'application/json', 'idempotency-key': 'idem-race-1' },
        body: JSON.stringify({ amount: '70000' }),
      });
    const responses = await Promise.all(Array.from({ length: 30 }, post));
    const replies = await Promise.all(
      responses.map(async (r) => ({
        status: r.status,
        replayed: r.headers.get('idempotent-replayed'),
        body: (await r.json()) as Reply['body'],
      })),
    );
    for (const r of replies) expect([200, 201], JSON.stringify(r.body)).toContain(r.status);
    expect(new Set(replies.map((r) => r.body.data!.trxid)).size).toBe(1);
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of replies.filter((x) => x.status === 200)) expect(r.replayed).toBe('true');
    const rows = await t.deps.db.selectFrom('transactions').select('id').where('amount', '=', 70_000).execute();
    expect(rows).toHaveLength(1);

    // The key with another body is refused, and creates nothing.
    const reused = await fetch(`${base}/api/payment-gateway/cqris`, {
      method: 'POST',
      headers: { 'x-api-key': t.testKey, 'content-type': 'application/json', 'idempotency-key': 'idem-race-1' },
      body: JSON.stringify({ amount: '70001' }),
    });
    expect(reused.status).toBe(409);
    expect(((await reused.json()) as Reply['body']).error!.code).toBe('idempotency_key_reused');
  });

  it('concurrent same-ref and same-Idempotency-Key requests from two merchants do not collide', async () => {
    const body = JSON.stringify({ amount: '80000', ref: 'shared-ref' });
    const send = (key: string) =>
      call('/api/payment-gateway/cqris', {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': 'shared-idem' },
        body,
      });
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(i % 2 === 0 ? t.testKey : other.testKey)),
    );
    for (const r of replies) expect([200, 201], JSON.stringify(r.body)).toContain(r.status);
    const mine = new Set(replies.filter((_, i) => i % 2 === 0).map((r) => r.body.data!.trxid));
    const theirs = new Set(replies.filter((_, i) => i % 2 === 1).map((r) => r.body.data!.trxid));
    expect(mine.size).toBe(1);
    expect(theirs.size).toBe(1);
    expect([...mine][0]).not.toBe([...theirs][0]);
  });

  it("isolation: merchant A's key never sees merchant B's transaction", async () => {
    // B creates transactions concurrently with A.
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(`/api/payment-gateway/cqris?amount=${90_000 + i}`, {
          headers: { 'x-api-key': i % 2 === 0 ? other.testKey : t.testKey },
        }),
      ),
    );
    for (const r of created) expect(r.status).toBe(200);
    const bIds = created.filter((_, i) => i % 2 === 0).map((r) => r.body.data!.trxid);
    const aIds = created.filter((_, i) => i % 2 === 1).map((r) => r.body.data!.trxid);

    for (const id of bIds) {
      for (const key of [t.testKey, t.liveKey]) {
        for (const mount of ['/api', '/api/api']) {
          const seen = await call(`${mount}/payment-gateway/cstatus?trxid=${id}`, { headers: { 'x-api-key': key } });
          expect(seen.status).toBe(404);
          expect(seen.body.error!.code).toBe('transaction_not_found');
        }
      }
      const paid = await call(`/api/payment-gateway/simulate?trxid=${id}`, {
        method: 'POST',
        headers: { 'x-api-key': t.testKey },
      });
      expect(paid.status).toBe(404);
      // B itself still sees it, unpaid.
      const own = await call(`/api/payment-gateway/cstatus?trxid=${id}`, { headers: { 'x-api-key': other.testKey } });
      expect(own.status).toBe(200);
      expect(own.body.data!.trxid).toBe(id);
      expect((own.body.data as unknown as { status: string }).status).toBe('pending');
    }
    // A's transactions are equally hidden from B, and test transactions from A's live key.
    for (const id of aIds) {
      expect(
        (await call(`/api/payment-gateway/cstatus?trxid=${id}`, { headers: { 'x-api-key': other.testKey } })).status,
      ).toBe(404);
      expect(
        (await call(`/api/payment-gateway/cstatus?trxid=${id}`, { headers: { 'x-api-key': t.liveKey } })).status,
      ).toBe(404);
    }

    const aList = await listAll(t.testKey);
    const bList = await listAll(other.testKey);
    const aSet = new Set(aList.map((x) => x.trxid));
    const bSet = new Set(bList.map((x) => x.trxid));
    for (const id of bIds) expect(aSet.has(id)).toBe(false);
    for (const id of aIds) {
      expect(aSet.has(id)).toBe(true);
      expect(bSet.has(id)).toBe(false);
    }
    for (const id of bIds) expect(bSet.has(id)).toBe(true);
    expect([...aSet].filter((id) => bSet.has(id))).toEqual([]);
    // Every transaction A lists is A's, in A's mode, per the database.
    const owners = await t.deps.db.selectFrom('transactions').select(['id', 'merchant_id', 'mode']).execute();
    const byId = new Map(owners.map((o) => [o.id, o]));
    for (const x of aList) {
      expect(byId.get(x.trxid)?.merchant_id).toBe(t.merchant.id);
      expect(x.mode).toBe('test');
    }
    expect(await listAll(t.liveKey)).toEqual([]);
  });
});
