// Issue 37, section 3: a merchant may have its unique code subtracted from the price, so the payer never
// pays more than it; the scaled range (max(99, 1% of the price), at most UNIQUE_CODE_MAX) holds on both
// create paths, concurrently, and a payment of the discounted total is matched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.js';
import { simulatePayment } from '../../../src/payment-sources/simulator.js';
import { createTestApp, type TestApp } from '../../helpers/context.js';
import { listeningPort } from '../../helpers/http-assertions.js';
import { CQRIS } from '../../helpers/api.js';

describe('unique code subtracted from the price', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${listeningPort(t.app)}`;
  });
  afterAll(async () => t.close());

  const create = async (amount: number, key = t.testKey) => {
    const res = await fetch(`${base}${CQRIS}?amount=${amount}`, { headers: { 'x-api-key': key } });
    return {
      status: res.status,
      body: (await res.json()) as {
        data?: { trxid: string; unique_code: number; total_amount: number };
        error?: { code: string; param?: string };
      },
    };
  };

  it('merchant update --unique-code subtract: totals are below the price by at most Rp99 on a Rp7.500 sale', async () => {
    const out: string[] = [];
    const code = await runCli(
      ['merchant', 'update', t.merchant.id, '--unique-code', 'subtract', '--json'],
      { out: (s) => void out.push(s), err: (s) => void out.push(s) },
      { DATABASE_URL: t.databaseUrl },
    );
    expect(code, out.join('')).toBe(0);
    expect(JSON.parse(out.join(''))).toEqual({ merchant_id: t.merchant.id, unique_code_mode: 'subtract' });
    const bad = await runCli(
      ['merchant', 'update', t.merchant.id, '--unique-code', 'sometimes'],
      { out: () => {}, err: () => {} },
      { DATABASE_URL: t.databaseUrl },
    );
    expect(bad).not.toBe(0);

    const made = await create(7500);
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const tx = made.body.data!;
    expect(tx.unique_code).toBeLessThan(0);
    expect(tx.unique_code).toBeGreaterThanOrEqual(-99);
    expect(tx.total_amount).toBe(7500 + tx.unique_code);

    // The matcher finds it by the discounted total.
    const paid = await simulatePayment(t.deps, { merchantId: t.merchant.id, mode: 'test' }, tx.trxid);
    expect(paid.transaction.status).toBe('paid');
    expect(paid.transaction.total_amount).toBe(tx.total_amount);
  });

  it('more concurrent creates of one small price than its range: exactly the range succeeds, the rest 503 unique_code_exhausted', async () => {
    const replies = await Promise.all(Array.from({ length: 130 }, () => create(8000)));
    const ok = replies.filter((r) => r.status === 200).map((r) => r.body.data!);
    const refused = replies.filter((r) => r.status !== 200);
    expect(ok).toHaveLength(99);
    expect(new Set(refused.map((r) => `${r.status} ${r.body.error?.code}`))).toEqual(
      new Set(['503 unique_code_exhausted']),
    );
    expect(new Set(ok.map((x) => x.total_amount)).size).toBe(99);
    expect(ok.map((x) => x.total_amount).sort((a, b) => a - b)).toEqual(Array.from({ length: 99 }, (_, i) => 7901 + i));
  });

  it('the same holds for a merchant that adds the code: a Rp9.000 sale never costs more than Rp9.099', async () => {
    await runCli(
      ['merchant', 'update', t.merchant.id, '--unique-code', 'add'],
      { out: () => {}, err: () => {} },
      { DATABASE_URL: t.databaseUrl },
    );
    // This process learns another process's change within 5 s (the issuer's cache).
    t.clock.advance(5_001);
    const replies = await Promise.all(Array.from({ length: 120 }, () => create(9000)));
    const ok = replies.filter((r) => r.status === 200).map((r) => r.body.data!);
    expect(ok).toHaveLength(99);
    for (const r of replies.filter((x) => x.status !== 200))
      expect([r.status, r.body.error?.code]).toEqual([503, 'unique_code_exhausted']);
    expect(ok.map((x) => x.total_amount).sort((a, b) => a - b)).toEqual(Array.from({ length: 99 }, (_, i) => 9001 + i));
  });

  it('a price with no room to subtract a code is refused as amount_out_of_range', async () => {
    await runCli(
      ['merchant', 'update', t.merchant.id, '--unique-code', 'subtract'],
      { out: () => {}, err: () => {} },
      { DATABASE_URL: t.databaseUrl },
    );
    t.clock.advance(5_001);
    const tiny = await create(1);
    expect(tiny.status).toBe(400);
    expect(tiny.body.error).toMatchObject({ code: 'amount_out_of_range', param: 'amount' });
    const small = await create(5);
    expect(small.status).toBe(200);
    expect(small.body.data!.total_amount).toBeGreaterThanOrEqual(1);
    expect(small.body.data!.total_amount).toBeLessThan(5);
  });
});
