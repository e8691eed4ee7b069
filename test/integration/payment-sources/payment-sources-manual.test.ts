import { userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireDue } from '../../../src/services/transactions/expire-due.js';
import { recordPayment } from '../../../src/services/payments/record-payment.js';
import { createTestApp, seedMerchant, type Seeded, type TestApp } from '../../helpers/context.js';
import { cli, createLive, footprint, listen, status } from '../../helpers/payment-sources.js';

let t: TestApp;
let base: string;
let other: Seeded;
let amount = 80_000;

beforeAll(async () => {
  t = await createTestApp();
  base = await listen(t);
  other = await seedMerchant(t.deps, 1, 'Other Merchant');
});
afterAll(async () => t.close());

const audits = (subjectId: string) =>
  t.deps.db.selectFrom('audit_log').selectAll().where('subject_id', '=', subjectId).orderBy('created_at').execute();

describe('payments confirm', () => {
  it('a manual confirmation pays a pending transaction, audited with the operator and time', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    const before = Date.now();
    const r = await cli(t, ['payments', 'confirm', tx.trxid, '--reference', 'BCA-20250131-001', '--json'], {
      QRIS_OPERATOR: 'siti',
    });
    expect(r.code, r.stdout).toBe(0);
    expect(r.json).toMatchObject({
      status: 'matched',
      reason: null,
      payment: {
        source: 'manual',
        reference: 'BCA-20250131-001',
        amount: tx.total_amount,
        status: 'matched',
        trxid: tx.trxid,
      },
      transaction: { trxid: tx.trxid, status: 'paid' },
    });
    expect(await status(base, t.liveKey, tx.trxid)).toMatchObject({
      status: 'paid',
      payment: { source: 'manual', reference: 'BCA-20250131-001' },
    });
    const [audit, ...rest] = await audits(tx.trxid);
    expect(rest).toHaveLength(0);
    expect(audit).toMatchObject({ actor: 'siti', action: 'payment.confirm', subject_type: 'transaction' });
    expect(audit!.created_at).toBeGreaterThanOrEqual(before);
    expect(JSON.parse(audit!.details!)).toMatchObject({
      payment_id: r.json!.payment.id,
      reference: 'BCA-20250131-001',
      outcome: 'matched',
    });
    const events = await t.deps.db.selectFrom('events').select('type').where('transaction_id', '=', tx.trxid).execute();
    expect(events.map((e) => e.type)).toEqual(['transaction.paid']);
  });

  it('without QRIS_OPERATOR the OS user is the actor; the human output is one line', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    const r = await cli(t, ['payments', 'confirm', tx.trxid, '--reference', `REF-${amount}`], { QRIS_OPERATOR: '' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${tx.trxid} is paid by ${(await status(base, t.liveKey, tx.trxid)).payment.id}\n`);
    expect((await audits(tx.trxid))[0]!.actor).toBe(userInfo().username);
  });

  it('an expired transaction confirmed by hand is paid late', async () => {
    const tx = await createLive(base, t.liveKey, ++amount, { expires_in: '60' });
    t.clock.advance(61_000);
    // The sweeper writes the expiry (the CLI runs on the real clock, which has not reached it).
    expect(await expireDue(t.deps)).toBeGreaterThanOrEqual(1);
    const r = await cli(t, ['payments', 'confirm', tx.trxid, '--reference', `LATE-${amount}`, '--json']);
    expect(r.json).toMatchObject({ status: 'matched', transaction: { status: 'paid', paid_late: true } });
    expect(await status(base, t.liveKey, tx.trxid)).toMatchObject({ status: 'paid', paid_late: true });
  });

  it('another amount is recorded as unmatched and the transaction stays pending', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    const r = await cli(t, [
      'payments',
      'confirm',
      tx.trxid,
      '--reference',
      `PART-${amount}`,
      '--amount',
      String(tx.amount),
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      status: 'unmatched',
      reason: 'amount_mismatch',
      payment: { status: 'unmatched', amount: tx.amount },
    });
    expect((await status(base, t.liveKey, tx.trxid)).status).toBe('pending');
    expect(await audits(tx.trxid)).toHaveLength(1);
  });

  it('refusals change nothing: paid, unknown, reused reference, bad amount', async () => {
    const paid = await createLive(base, t.liveKey, ++amount);
    await cli(t, ['payments', 'confirm', paid.trxid, '--reference', `USED-${amount}`, '--json']);
    const pending = await createLive(base, t.liveKey, ++amount);
    const before = await footprint(t);
    const cases: Array<[string[], string]> = [
      [['payments', 'confirm', paid.trxid, '--reference', 'NEW-1'], 'transaction_already_paid'],
      [['payments', 'confirm', 'trx_nope', '--reference', 'NEW-2'], 'transaction_not_found'],
      [['payments', 'confirm', pending.trxid, '--reference', `USED-${amount - 1}`], 'reference_already_recorded'],
      [['payments', 'confirm', pending.trxid, '--reference', 'NEW-3', '--amount', '1.000'], 'invalid_amount'],
      [['payments', 'confirm', pending.trxid, '--reference', ' '], 'invalid_parameter'],
    ];
    for (const [argv, code] of cases) {
      const r = await cli(t, [...argv, '--json']);
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.json!.error.code, argv.join(' ')).toBe(code);
    }
    expect(await footprint(t)).toEqual(before);
    expect(await audits(pending.trxid)).toHaveLength(0);
    expect((await status(base, t.liveKey, pending.trxid)).status).toBe('pending');
  });
});

describe('payments assign and list', () => {
  it('assigns an unmatched payment, writing the transaction.paid event and an audit row', async () => {
    const tx = await createLive(base, t.liveKey, ++amount);
    // The payer paid the right total, but the report came dated long before the transaction existed.
    const stray = await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'live',
      source: 'test-feed',
      sourcePaymentId: `stray-${amount}`,
      amount: tx.total_amount,
      paidAt: t.clock.now() - 3_600_000,
      issuer: 'OVO',
    });
    expect(stray).toMatchObject({ outcome: 'unmatched', reason: 'paid_before_creation' });
    const listed = await cli(t, ['payments', 'list', '--status', 'unmatched', '--merchant', t.merchant.id, '--json']);
    expect(Object.keys(listed.json!)).toEqual(['items']);
    expect(listed.json!.items[0]).toMatchObject({
      id: stray.payment.id,
      status: 'unmatched',
      reason: 'paid_before_creation',
      issuer: 'OVO',
      trxid: null,
    });

    const r = await cli(t, ['payments', 'assign', stray.payment.id, tx.trxid, '--json'], { QRIS_OPERATOR: 'andi' });
    expect(r.code, r.stdout).toBe(0);
    expect(r.json).toMatchObject({
      payment: { id: stray.payment.id, status: 'matched', trxid: tx.trxid },
      transaction: { status: 'paid', payment: { id: stray.payment.id, issuer: 'OVO' } },
    });
    const events = await t.deps.db.selectFrom('events').selectAll().where('transaction_id', '=', tx.trxid).execute();
    expect(events.map((e) => e.type)).toEqual(['transaction.paid']);
    expect(JSON.parse(events[0]!.payload).data).toMatchObject({
      trxid: tx.trxid,
      status: 'paid',
      payment: { id: stray.payment.id },
    });
    expect(await audits(stray.payment.id)).toMatchObject([{ actor: 'andi', action: 'payment.assign' }]);

    const matched = await cli(t, ['payments', 'list', '--status', 'matched', '--json']);
    expect(matched.json!.items.map((p: any) => p.id)).toContain(stray.payment.id);
    const human = await cli(t, ['payments', 'list', '--merchant', t.merchant.id]);
    expect(human.stdout).toContain(`${stray.payment.id}  `);
  });

  it('refuses unknown payments and transactions of another merchant or already paid, changing nothing', async () => {
    const mine = await createLive(base, t.liveKey, ++amount);
    const theirs = await createLive(base, other.liveKey, amount);
    const stray = await recordPayment(t.deps, {
      merchantId: t.merchant.id,
      mode: 'live',
      source: 'test-feed',
      sourcePaymentId: `x-${amount}`,
      amount: 1_234_567,
      paidAt: t.clock.now(),
    });
    await cli(t, ['payments', 'confirm', mine.trxid, '--reference', `R-${amount}`, '--json']);
    const before = await footprint(t);
    const cases: Array<[string[], string]> = [
      [['payments', 'assign', 'pay_nope', mine.trxid], 'payment_not_found'],
      [['payments', 'assign', stray.payment.id, theirs.trxid], 'transaction_not_found'],
      [['payments', 'assign', stray.payment.id, mine.trxid], 'transaction_already_paid'],
    ];
    for (const [argv, code] of cases) {
      const r = await cli(t, [...argv, '--json']);
      expect(r.json!.error.code, argv.join(' ')).toBe(code);
    }
    expect(await footprint(t)).toEqual(before);
    expect(await audits(stray.payment.id)).toHaveLength(0);
  });

  it('validates --status and --limit', async () => {
    expect((await cli(t, ['payments', 'list', '--status', 'lost', '--json'])).code).toBe(2);
    expect((await cli(t, ['payments', 'list', '--limit', '0', '--json'])).json!.error.code).toBe('invalid_parameter');
  });
});

describe('source commands', () => {
  it('source list never prints a secret, in JSON or as text', async () => {
    const added = await cli(t, [
      'source',
      'add',
      '--merchant',
      t.merchant.id,
      '--type',
      'webhook',
      '--mode',
      'test',
      '--json',
    ]);
    const secret = added.json!.secret as string;
    const json = await cli(t, ['source', 'list', '--json']);
    const text = await cli(t, ['source', 'list']);
    expect(json.stdout).not.toContain(secret);
    expect(text.stdout).not.toContain(secret);
    expect(json.json!.items.find((s: any) => s.id === added.json!.id)).toEqual({
      id: added.json!.id,
      merchant_id: t.merchant.id,
      type: 'webhook',
      mode: 'test',
      enabled: true,
      // Added without --name (issue 37, section 6).
      name: null,
      created_at: expect.any(String),
      url: `/api/payment-sources/${added.json!.id}/events`,
    });
    expect(await audits(added.json!.id)).toMatchObject([{ action: 'source.add', actor: 'test-operator' }]);
  });

  it('source disable and enable, audited', async () => {
    const added = await cli(t, ['source', 'add', '--merchant', t.merchant.id, '--type', 'webhook', '--json']);
    expect((await cli(t, ['source', 'disable', added.json!.id, '--json'])).json).toMatchObject({
      id: added.json!.id,
      enabled: false,
    });
    expect((await cli(t, ['source', 'enable', added.json!.id, '--json'])).json).toMatchObject({ enabled: true });
    expect((await audits(added.json!.id)).map((a) => a.action)).toEqual([
      'source.add',
      'source.disable',
      'source.enable',
    ]);
    expect((await cli(t, ['source', 'disable', 'src_nope', '--json'])).json!.error.code).toBe('source_not_found');
  });

  it('source add refuses an unknown merchant, a missing type and a snap source without --config', async () => {
    expect(
      (await cli(t, ['source', 'add', '--merchant', 'mch_nope', '--type', 'webhook', '--json'])).json!.error.code,
    ).toBe('merchant_not_found');
    expect((await cli(t, ['source', 'add', '--merchant', t.merchant.id, '--json'])).code).toBe(2);
    expect(
      (await cli(t, ['source', 'add', '--merchant', t.merchant.id, '--type', 'snap', '--json'])).json!.error,
    ).toMatchObject({
      code: 'invalid_parameter',
      param: 'config',
    });
  });
});
