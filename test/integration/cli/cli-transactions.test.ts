import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.js';
import { loadConfig } from '../../../src/config.js';
import { openRuntime, type Runtime } from '../../../src/runtime.js';
import { createTransaction } from '../../../src/services/transactions/create-transaction.js';
import { createInput, freshDatabaseUrl, seedMerchant, type Seeded } from '../../helpers/context.js';

// The operators' transaction commands, on the suite's database (SQLite, or PostgreSQL on that run).
let dir: string;
let drop: () => Promise<void>;
let env: Record<string, string>;
let runtime: Runtime;
let a: Seeded;
let b: Seeded;

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => void out.push(t), err: (t) => void err.push(t) }, env);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

async function json(...argv: string[]): Promise<any> {
  const r = await cli(...argv, '--json');
  expect(r.stderr).toBe('');
  const lines = r.stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return { code: r.code, body: JSON.parse(lines[0]!) };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'qg-cli-tx-'));
  const fresh = await freshDatabaseUrl(dir);
  drop = fresh.drop;
  // PUBLIC_BASE_URL set: without it a command that makes links notes their base on stderr (cli-link-base.test.ts).
  env = { DATABASE_URL: fresh.url, QRIS_OPERATOR: 'ops@example.test', PUBLIC_BASE_URL: 'http://gateway.test' };
  runtime = await openRuntime(loadConfig(env));
  a = await seedMerchant(runtime.deps, 0, 'Warung A');
  b = await seedMerchant(runtime.deps, 1, 'Toko B');
});

afterAll(async () => {
  await runtime.close();
  await drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('transactions list|show|cancel', () => {
  it('lists newest first, filtered by merchant, status and mode, bounded by --limit', async () => {
    const made = [];
    for (const [seed, mode, amount] of [
      [a, 'test', 11_000],
      [a, 'live', 12_000],
      [b, 'live', 13_000],
      [a, 'live', 14_000],
    ] as const) {
      made.push((await createTransaction(runtime.deps, createInput(seed.merchant.id, amount, { mode }))).transaction);
      await new Promise((r) => setTimeout(r, 3));
    }
    const all = await json('transactions', 'list');
    expect(all.code).toBe(0);
    expect(all.body.items.map((t: any) => t.trxid)).toEqual(made.map((t) => t.id).reverse());
    expect(all.body.items[0]).toMatchObject({
      merchant_id: a.merchant.id,
      status: 'pending',
      mode: 'live',
      total_amount: made[3]!.total_amount,
    });

    const onlyB = await json('transactions', 'list', '--merchant', b.merchant.id);
    expect(onlyB.body.items.map((t: any) => t.trxid)).toEqual([made[2]!.id]);
    const live = await json('transactions', 'list', '--merchant', a.merchant.id, '--mode', 'live', '--limit', '1');
    expect(live.body.items.map((t: any) => t.trxid)).toEqual([made[3]!.id]);

    const human = await cli('transactions', 'list', '--merchant', b.merchant.id);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(made[2]!.id);
    expect(human.stdout).toContain('pending');
  });

  it('cancels a pending transaction of any merchant, audited, and lists it by status', async () => {
    const tx = (await createTransaction(runtime.deps, createInput(b.merchant.id, 21_000, { mode: 'live' })))
      .transaction;
    const res = await json('transactions', 'cancel', tx.id);
    expect(res.code).toBe(0);
    expect(res.body).toMatchObject({ trxid: tx.id, status: 'cancelled', merchant_id: b.merchant.id });
    expect(res.body.cancelled_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    // Idempotent, as through the API.
    expect((await json('transactions', 'cancel', tx.id)).body.cancelled_at).toBe(res.body.cancelled_at);

    const audit = await runtime.deps.db.selectFrom('audit_log').selectAll().where('subject_id', '=', tx.id).execute();
    expect(audit.map((r) => [r.actor, r.action])).toEqual([['ops@example.test', 'transaction.cancel']]);
    const cancelled = await json('transactions', 'list', '--status', 'cancelled');
    expect(cancelled.body.items.map((t: any) => t.trxid)).toContain(tx.id);
    expect(cancelled.body.items.every((t: any) => t.status === 'cancelled')).toBe(true);

    const shown = await json('transactions', 'show', tx.id);
    expect(shown.body).toMatchObject({ trxid: tx.id, status: 'cancelled', cancelled_at: res.body.cancelled_at });
    const human = await cli('transactions', 'show', tx.id);
    expect(human.stdout).toMatch(/status\s+cancelled/);
    expect(human.stdout).toMatch(/cancelled\s+\d{4}-/);
  });

  it('reports refusals with the API error codes and exit code 1', async () => {
    const tx = (await createTransaction(runtime.deps, createInput(a.merchant.id, 31_000))).transaction;
    expect((await cli('pay', tx.id)).code).toBe(0);
    const paid = await json('transactions', 'cancel', tx.id);
    expect(paid.code).toBe(1);
    expect(paid.body.error.code).toBe('transaction_already_paid');
    const missing = await json('transactions', 'show', 'trx_doesnotexist0000000000');
    expect(missing.code).toBe(1);
    expect(missing.body.error.code).toBe('transaction_not_found');
    const malformed = await json('transactions', 'cancel', 'not-a-trxid');
    expect(malformed.body.error).toMatchObject({ code: 'invalid_parameter', param: 'trxid' });
    const badLimit = await json('transactions', 'list', '--limit', '0');
    expect(badLimit.body.error).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
    const human = await cli('transactions', 'cancel', tx.id);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain('transaction_already_paid');
  });

  it('refunds a paid transaction: partial, then the rest by default; audited as the operator; refusals as the API words them', async () => {
    const tx = (await createTransaction(runtime.deps, createInput(b.merchant.id, 32_000))).transaction;
    const notPaid = await json('transactions', 'refund', tx.id, '--reason', 'x');
    expect(notPaid.code).toBe(1);
    expect(notPaid.body.error.code).toBe('transaction_not_paid');
    expect((await cli('pay', tx.id)).code).toBe(0);
    const noReason = await json('transactions', 'refund', tx.id);
    expect(noReason.body.error).toMatchObject({ code: 'invalid_parameter', param: 'reason' });
    // Issue 35, finding 2: no link or address in what the payer reads.
    for (const reason of ['see https://evil.example/verify', 'evil\u200B.example', '10.0.0.1']) {
      const linked = await json('transactions', 'refund', tx.id, '--amount', '1', '--reason', reason);
      expect(linked.code).toBe(1);
      expect(linked.body.error).toMatchObject({ code: 'invalid_parameter', param: 'reason' });
    }
    const linkedReference = await json(
      'transactions',
      'refund',
      tx.id,
      '--amount',
      '1',
      '--reason',
      'ok',
      '--reference',
      'x@evil.example',
    );
    expect(linkedReference.body.error).toMatchObject({ code: 'invalid_parameter', param: 'reference' });
    const part = await json(
      'transactions',
      'refund',
      tx.id,
      '--amount',
      '2000',
      '--reason',
      'one cup',
      '--reference',
      'CASH-1',
    );
    expect(part.code).toBe(0);
    expect(part.body).toMatchObject({ trxid: tx.id, merchant_id: b.merchant.id, refunded_amount: 2000 });
    expect(part.body.refund).toMatchObject({
      amount: 2000,
      status: 'succeeded',
      recorded: true,
      reference: 'CASH-1',
      reason: 'one cup',
    });
    const rest = await json('transactions', 'refund', tx.id, '--reason', 'the rest');
    expect(rest.body.refunded_amount).toBe(rest.body.amount_paid);
    expect(rest.body.refunds.map((r: { amount: number }) => r.amount)).toEqual([2000, rest.body.amount_paid - 2000]);
    const over = await json('transactions', 'refund', tx.id, '--amount', '1', '--reason', 'more');
    expect(over.body.error.code).toBe('refund_exceeds_remaining');
    const shown = await cli('transactions', 'show', tx.id);
    expect(shown.stdout).toMatch(/refund\s+rf_\S+ .*succeeded \(recorded\): one cup/);
    const human = await cli('transactions', 'refund', tx.id, '--reason', 'again');
    expect(human.code).toBe(1);
    const audit = await runtime.deps.db
      .selectFrom('audit_log')
      .selectAll()
      .where('subject_id', '=', tx.id)
      .where('action', '=', 'transaction.refund')
      .execute();
    expect(audit.map((r) => r.actor)).toEqual(['ops@example.test', 'ops@example.test']);
    const rows = await runtime.deps.db
      .selectFrom('refunds')
      .select('requested_by')
      .where('transaction_id', '=', tx.id)
      .execute();
    expect(rows.map((r) => r.requested_by)).toEqual(['ops@example.test', 'ops@example.test']);
  });

  it('prints its version', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V']) {
      const r = await cli(flag);
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toBe(version);
    }
  });
});
