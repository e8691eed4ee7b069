import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/domain/errors.js';
import { randomBase62 } from '../../../src/domain/ids.js';
import { SnapClient } from '../../../src/payment-sources/snap/client.js';
import { outcomeOf } from '../../../src/payment-sources/snap/config.js';
import { schedulePoll } from '../../../src/payment-sources/snap/issue.js';
import { pollDueSnapQueries } from '../../../src/payment-sources/snap/poll.js';
import { snapSourceById } from '../../../src/payment-sources/snap/sources.js';
import type { CodeIssuer, IssuerRefundOutcome } from '../../../src/services/deps.js';
import { setSourceEnabled } from '../../../src/services/sources/set-source-enabled.js';
import { readTransaction } from '../../../src/storage/queries/transactions.js';
import type { TransactionsTable } from '../../../src/storage/schema.js';
import { TEST_ACTOR } from '../../helpers/console.js';
import { startSnapWorld, type SnapWorld } from '../../helpers/snap.js';

// Refunds of acquirer-issued codes (service 78) through the SNAP issuer the refund service uses, against
// the dev acquirer over loopback, which checks signatures and keeps its own ledger of refunds. The
// gateway's acquirer timeout is short so that a stalled acquirer is quick to test.
let w: SnapWorld;
beforeAll(async () => {
  w = await startSnapWorld({ env: { SNAP_HTTP_TIMEOUT_MS: '400' } });
});
afterAll(async () => w.close());

const refundId = () => `rf_${randomBase62(16)}`;

/** A transaction created at the acquirer and paid there, as the gateway now has it. */
async function paidTransaction(): Promise<{ tx: TransactionsTable; issuer: CodeIssuer }> {
  const created = await w.cqris();
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  await w.sim.pay(created.body.data.trxid);
  const tx = (await readTransaction(w.t.deps.db, created.body.data.trxid))!;
  expect(tx.status).toBe('paid');
  return { tx, issuer: await w.t.deps.issuers.forTransaction(w.t.deps, tx) };
}

async function refund(
  issuer: CodeIssuer,
  tx: TransactionsTable,
  input: { id?: string; amount: number; reason?: string },
): Promise<IssuerRefundOutcome> {
  return issuer.refund(w.t.deps, tx, {
    id: input.id ?? refundId(),
    amount: input.amount,
    reason: input.reason ?? 'out of stock',
  });
}

async function rejection(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

async function acquirerStatus(tx: TransactionsTable): Promise<string> {
  const source = (await snapSourceById(w.t.deps, w.sourceId))!;
  const answer = await new SnapClient(source, w.t.deps).query({
    partnerReferenceNo: tx.id,
    referenceNo: tx.acquirer_reference!,
  });
  return answer.latestTransactionStatus;
}

describe('refund of an acquirer-issued code', () => {
  it('is a SNAP issuer refund at the acquirer', async () => {
    const { issuer } = await paidTransaction();
    expect(issuer.refunds).toBe('acquirer');
  });

  it('refunds all of it: succeeded with the acquirer reference and time, and the acquirer then says 04 (refunded)', async () => {
    const { tx, issuer } = await paidTransaction();
    const id = refundId();
    const calls = w.sim.counts.refund;
    const outcome = await refund(issuer, tx, { id, amount: tx.total_amount });
    const held = w.sim.refunds.get(`${w.config.clientId}:${id}`)!;
    expect(held).toMatchObject({
      amount: tx.total_amount,
      reason: 'out of stock',
      status: 'succeeded',
      codeReference: tx.acquirer_reference,
    });
    // refundTime is whole seconds on the wire.
    expect(outcome).toEqual({
      status: 'succeeded',
      reference: held.referenceNo,
      completedAt: Math.floor(held.refundedAt! / 1000) * 1000,
    });
    expect(w.sim.counts.refund).toBe(calls + 1);
    expect(w.sim.refunded(tx.id)).toBe(tx.total_amount);
    expect(await acquirerStatus(tx)).toBe('04');
  });

  it('refunds part, then more parts up to the paid amount, then refuses one rupiah more as over the remaining', async () => {
    const { tx, issuer } = await paidTransaction();
    const first = await refund(issuer, tx, { amount: 3000 });
    const second = await refund(issuer, tx, { amount: 3000 });
    expect(first.status).toBe('succeeded');
    expect(second.status).toBe('succeeded');
    if (first.status !== 'succeeded' || second.status !== 'succeeded') return;
    expect(first.reference).not.toBe(second.reference);
    expect(w.sim.refunded(tx.id)).toBe(6000);
    // Partly refunded is still paid at the acquirer.
    expect(await acquirerStatus(tx)).toBe('00');
    expect((await refund(issuer, tx, { amount: tx.total_amount - 6000 })).status).toBe('succeeded');
    expect(w.sim.refunded(tx.id)).toBe(tx.total_amount);
    expect(await acquirerStatus(tx)).toBe('04');
    const over = await refund(issuer, tx, { amount: 1 });
    expect(over).toMatchObject({ status: 'refused', code: 'refund_exceeds_remaining' });
    expect(w.sim.refunded(tx.id)).toBe(tx.total_amount);
  });

  it('refuses an amount over what remains as refund_exceeds_remaining, keeping the acquirer code, and refunds nothing', async () => {
    const { tx, issuer } = await paidTransaction();
    expect((await refund(issuer, tx, { amount: 4000 })).status).toBe('succeeded');
    const outcome = await refund(issuer, tx, { amount: tx.total_amount - 3999 });
    expect(outcome.status).toBe('refused');
    if (outcome.status !== 'refused') return;
    expect(outcome.code).toBe('refund_exceeds_remaining');
    expect(outcome.message).toContain('4037802');
    expect(outcome.message).toContain(`${tx.total_amount - 4000}.00`);
    expect(w.sim.refunded(tx.id, { inProgress: true })).toBe(4000);
    // Exactly the rest is still refundable.
    expect((await refund(issuer, tx, { amount: tx.total_amount - 4000 })).status).toBe('succeeded');
  });

  it("reports the payer's issuer refusing as refund_refused, the same on a retry with the same id, and refunds nothing", async () => {
    const { tx, issuer } = await paidTransaction();
    const id = refundId();
    w.sim.refuseNextRefund = 'issuer does not accept refunds';
    const outcome = await refund(issuer, tx, { id, amount: tx.total_amount });
    expect(outcome.status).toBe('refused');
    if (outcome.status !== 'refused') return;
    expect(outcome.code).toBe('refund_refused');
    expect(outcome.message).toContain('4037805');
    expect(outcome.message).toContain('issuer does not accept refunds');
    expect(await refund(issuer, tx, { id, amount: tx.total_amount })).toEqual(outcome);
    expect(w.sim.refunded(tx.id, { inProgress: true })).toBe(0);
    expect(await acquirerStatus(tx)).toBe('00');
  });

  it('answers in progress, then succeeded with the same reference when asked again with the same id', async () => {
    const { tx, issuer } = await paidTransaction();
    const id = refundId();
    w.sim.refundInProgressAsks = 1;
    const first = await refund(issuer, tx, { id, amount: 5000 });
    expect(first.status).toBe('in_progress');
    if (first.status !== 'in_progress') return;
    expect(first.reference).toMatch(/^R/);
    // Under way at the acquirer: held, not yet refunded, and not yet available to another refund.
    expect(w.sim.refunded(tx.id)).toBe(0);
    expect(w.sim.refunded(tx.id, { inProgress: true })).toBe(5000);
    const second = await refund(issuer, tx, { id, amount: 5000 });
    expect(second).toMatchObject({ status: 'succeeded', reference: first.reference });
    expect(w.sim.refunded(tx.id)).toBe(5000);
  });

  it('stays in progress for as many asks as the acquirer takes', async () => {
    const { tx, issuer } = await paidTransaction();
    const id = refundId();
    w.sim.refundInProgressAsks = 3;
    for (let ask = 1; ask <= 3; ask++)
      expect((await refund(issuer, tx, { id, amount: tx.total_amount })).status).toBe('in_progress');
    expect(await acquirerStatus(tx)).toBe('00');
    expect((await refund(issuer, tx, { id, amount: tx.total_amount })).status).toBe('succeeded');
    expect(await acquirerStatus(tx)).toBe('04');
  });

  it('a retry with the same id after a success answers the same success and does not refund twice', async () => {
    const { tx, issuer } = await paidTransaction();
    const id = refundId();
    const first = await refund(issuer, tx, { id, amount: 2500 });
    const again = await refund(issuer, tx, { id, amount: 2500 });
    expect(first.status).toBe('succeeded');
    expect(again).toEqual(first);
    expect(w.sim.refunded(tx.id)).toBe(2500);
    // The same id for another amount is a mistake the acquirer refuses, still without refunding.
    expect(await refund(issuer, tx, { id, amount: 3000 })).toMatchObject({ status: 'refused', code: 'refund_refused' });
    expect(w.sim.refunded(tx.id)).toBe(2500);
  });

  it('is acquirer_unavailable when the acquirer does not answer in time; the retry with the same id learns it was refunded once', async () => {
    const { tx, issuer } = await paidTransaction();
    const id = refundId();
    // The acquirer answers after 1.5 s (and does refund): the gateway gives up after 0.4 s.
    w.sim.stallNext.refund = 1500;
    const err = await rejection(refund(issuer, tx, { id, amount: tx.total_amount }));
    expect(err.code).toBe('acquirer_unavailable');
    expect(err.message).toMatch(/did not answer refund/);
    expect(err.retryAfter).toBeGreaterThan(0);
    // Wait (bounded) for the stalled request to be served at the acquirer.
    const deadline = Date.now() + 15_000;
    while (w.sim.refunded(tx.id) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(w.sim.refunded(tx.id)).toBe(tx.total_amount);
    const again = await refund(issuer, tx, { id, amount: tx.total_amount });
    expect(again.status).toBe('succeeded');
    expect(w.sim.refunded(tx.id)).toBe(tx.total_amount);
    expect([...w.sim.refunds.values()].filter((r) => r.codeReference === tx.acquirer_reference)).toHaveLength(1);
  });

  it('is acquirer_unavailable on a 5xx or a 429, nothing refunded, and the same id then goes through', async () => {
    const { tx, issuer } = await paidTransaction();
    const id = refundId();
    for (const status of [500, 503, 429]) {
      w.sim.failNext.refund = status;
      const err = await rejection(refund(issuer, tx, { id, amount: 1000 }));
      expect(err.code).toBe('acquirer_unavailable');
      expect(err.message).toContain(`${status}7800`);
      expect(w.sim.refunded(tx.id, { inProgress: true })).toBe(0);
    }
    expect((await refund(issuer, tx, { id, amount: 1000 })).status).toBe('succeeded');
    expect(w.sim.refunded(tx.id)).toBe(1000);
  });

  it('renews an access token the acquirer forgot, and refunds', async () => {
    const { tx, issuer } = await paidTransaction();
    w.sim.revokeTokens();
    expect((await refund(issuer, tx, { amount: 1500 })).status).toBe('succeeded');
    expect(w.sim.refunded(tx.id)).toBe(1500);
  });

  it('refuses a code that was never paid (the acquirer says Transaction Not Permitted)', async () => {
    const created = await w.cqris();
    const tx = (await readTransaction(w.t.deps.db, created.body.data.trxid))!;
    const issuer = await w.t.deps.issuers.forTransaction(w.t.deps, tx);
    const outcome = await refund(issuer, tx, { amount: tx.total_amount });
    expect(outcome).toMatchObject({ status: 'refused', code: 'refund_refused' });
    if (outcome.status === 'refused') expect(outcome.message).toContain('4037815');
    expect(w.sim.refunded(tx.id, { inProgress: true })).toBe(0);
  });

  it('a refunded code is still a paid transaction: a 04 notification and a leftover poll change nothing', async () => {
    const { tx, issuer } = await paidTransaction();
    expect((await refund(issuer, tx, { amount: tx.total_amount })).status).toBe('succeeded');
    const source = (await snapSourceById(w.t.deps, w.sourceId))!;
    expect(await acquirerStatus(tx)).toBe('04');
    // The gateway's mapping of 04 is not "paid", so nothing would record a second payment from it.
    expect(outcomeOf(source.config, '04')).not.toBe('paid');
    const sent = await w.sim.notify(tx.id);
    expect(sent.status).toBe(200);
    await w.t.deps.db.runInTransaction((trx) =>
      schedulePoll(trx, {
        transactionId: tx.id,
        sourceId: w.sourceId,
        createdAt: w.t.deps.now() - 60_000,
        expiresAt: tx.expires_at,
      }),
    );
    const queries = w.sim.counts.query;
    await pollDueSnapQueries(w.t.deps);
    // A paid transaction's poll stops without asking.
    expect(w.sim.counts.query).toBe(queries);
    const after = await w.cstatus(tx.id);
    expect(after).toMatchObject({ status: 'paid', paid_late: false, cancelled_at: null });
    const events = await w.t.deps.db.selectFrom('events').select('type').where('transaction_id', '=', tx.id).execute();
    expect(events.map((e) => e.type)).toEqual(['transaction.paid']);
    const row = (await readTransaction(w.t.deps.db, tx.id))!;
    expect({ status: row.status, paid_at: row.paid_at }).toEqual({ status: 'paid', paid_at: tx.paid_at });
  });

  it('is acquirer_error, naming the source, when the source that issued the code is disabled', async () => {
    const { tx } = await paidTransaction();
    await setSourceEnabled(w.t.deps, { id: w.sourceId, enabled: false, actor: TEST_ACTOR });
    try {
      const err = await rejection(w.t.deps.issuers.forTransaction(w.t.deps, tx));
      expect(err.code).toBe('acquirer_error');
      expect(err.message).toContain(w.sourceId);
      expect(err.message).toMatch(/refund/);
    } finally {
      await setSourceEnabled(w.t.deps, { id: w.sourceId, enabled: true, actor: TEST_ACTOR });
    }
    expect(w.sim.refunded(tx.id, { inProgress: true })).toBe(0);
  });
});
