// Refunds of acquirer-issued codes through the HTTP API, end to end (issue 28, "Done when"): the API, the
// refund service and its resolver, the SNAP issuer and the dev acquirer over loopback with its own ledger
// of refunds. SNAP success, partial and repeated up to the paid amount, "in progress" then success,
// refusal, acquirer timeout, an idempotent retry, and a resolver round that one broken refund does not stop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setSourceEnabled } from '../../../src/services/sources/set-source-enabled.js';
import { resolveDueRefunds } from '../../../src/services/refunds/resolve-due-refunds.js';
import { readTransaction } from '../../../src/storage/queries/transactions.js';
import { API_BASE } from '../../helpers/api.js';
import { TEST_ACTOR } from '../../helpers/console.js';
import { startSnapWorld, type SnapWorld } from '../../helpers/snap.js';

interface RefundView {
  id: string;
  amount: number;
  status: string;
  reference: string | null;
  recorded: boolean;
  error_code: string | null;
}
interface Refunded {
  trxid: string;
  amount_paid: number;
  refunded_amount: number;
  refunds: RefundView[];
  refund: RefundView & { note: string };
}

let w: SnapWorld;
beforeAll(async () => {
  // A short acquirer timeout, so that a stalled acquirer is quick to test.
  w = await startSnapWorld({ env: { SNAP_HTTP_TIMEOUT_MS: '400' } });
});
afterAll(async () => w.close());

/** A transaction whose code the acquirer issued, paid at the acquirer. */
async function paidAtAcquirer(): Promise<{ trxid: string; total: number }> {
  const created = await w.cqris();
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const trxid = created.body.data.trxid as string;
  await w.sim.pay(trxid);
  const tx = (await readTransaction(w.t.deps.db, trxid))!;
  expect(tx.status).toBe('paid');
  expect(tx.acquirer_reference).not.toBeNull();
  return { trxid, total: tx.total_amount };
}

async function refund(params: Record<string, string | number>, headers: Record<string, string> = {}) {
  const res = await w.t.app.inject({
    method: 'POST',
    url: `${API_BASE}/refund`,
    headers: { 'x-api-key': w.t.liveKey, ...headers },
    payload: { reason: 'out of stock', ...params },
  });
  return {
    status: res.statusCode,
    headers: res.headers,
    body: res.json() as { success: boolean; data: Refunded; error?: { code: string; message: string } },
  };
}

const stored = (trxid: string) => readTransaction(w.t.deps.db, trxid).then((tx) => tx!);
const eventsOf = (trxid: string, type: string) =>
  w.t.deps.db
    .selectFrom('events')
    .select('id')
    .where('transaction_id', '=', trxid)
    .where('type', '=', type as 'refund.succeeded')
    .execute();
/** Makes every pending refund due now, as the resolver's backoff would after its wait. */
const dueNow = () =>
  w.t.deps.db.updateTable('refunds').set({ next_attempt_at: 0 }).where('status', '=', 'pending').execute();

describe('refunds of acquirer-issued codes over the API', () => {
  it('a full refund succeeds at the acquirer: its reference recorded, refunded_amount = paid, one refund.succeeded', async () => {
    const { trxid, total } = await paidAtAcquirer();
    const res = await refund({ trxid });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const r = res.body.data.refund;
    expect(r).toMatchObject({ amount: total, status: 'succeeded', recorded: false });
    const atAcquirer = w.sim.refunds.get(`${w.config.clientId}:${r.id}`)!;
    expect(r.reference).toBe(atAcquirer.referenceNo);
    expect(res.body.data.refunded_amount).toBe(total);
    expect(w.sim.refunded(trxid)).toBe(total);
    expect(await eventsOf(trxid, 'refund.succeeded')).toHaveLength(1);
  });

  it('partial refunds up to the paid amount, then one rupiah more is refused; the acquirer and the gateway agree', async () => {
    const { trxid, total } = await paidAtAcquirer();
    for (const amount of [3000, 2000]) expect((await refund({ trxid, amount })).status).toBe(200);
    const rest = total - 5000;
    const last = await refund({ trxid });
    expect(last.status).toBe(200);
    expect(last.body.data.refund.amount).toBe(rest);
    const over = await refund({ trxid, amount: 1 });
    expect(over.status).toBe(409);
    expect(over.body.error!.code).toBe('refund_exceeds_remaining');
    const tx = await stored(trxid);
    expect(tx.refunded_amount).toBe(total);
    expect(tx.refund_held).toBe(0);
    expect(w.sim.refunded(trxid)).toBe(total);
  });

  it('"in progress" answers 200 with the refund pending and held; the resolver asks again with the same id and it succeeds once', async () => {
    const { trxid } = await paidAtAcquirer();
    w.sim.refundInProgressAsks = 1;
    const res = await refund({ trxid, amount: 4000 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.data.refund.id;
    expect(res.body.data.refund.status).toBe('pending');
    expect(res.body.data.refunded_amount).toBe(0);
    expect((await stored(trxid)).refund_held).toBe(4000);
    expect(await eventsOf(trxid, 'refund.succeeded')).toHaveLength(0);

    await dueNow();
    expect(await resolveDueRefunds(w.t.deps)).toBeGreaterThanOrEqual(1);
    const tx = await stored(trxid);
    expect(tx.refunded_amount).toBe(4000);
    expect(tx.refund_held).toBe(0);
    // One refund at the acquirer under that id, whatever number of asks it took.
    expect([...w.sim.refunds.keys()].filter((k) => k.endsWith(`:${id}`))).toHaveLength(1);
    expect(w.sim.refunded(trxid)).toBe(4000);
    expect(await eventsOf(trxid, 'refund.succeeded')).toHaveLength(1);
  });

  it("an issuer's refusal is 422 refund_refused, kept as failed with the acquirer's words, and the amount is free again", async () => {
    const { trxid, total } = await paidAtAcquirer();
    w.sim.refuseNextRefund = 'Do Not Honor';
    const res = await refund({ trxid, amount: 1000 });
    expect(res.status).toBe(422);
    expect(res.body.error!.code).toBe('refund_refused');
    expect(res.body.error!.message).toContain('Do Not Honor');
    let tx = await stored(trxid);
    expect(tx.refunded_amount).toBe(0);
    expect(tx.refund_held).toBe(0);
    const rows = await w.t.deps.db.selectFrom('refunds').selectAll().where('transaction_id', '=', trxid).execute();
    expect(rows.map((r) => [r.status, r.error_code])).toEqual([['failed', 'refund_refused']]);
    expect(await eventsOf(trxid, 'refund.failed')).toHaveLength(1);
    // Nothing was held back: the whole amount can still be refunded.
    const full = await refund({ trxid });
    expect(full.status).toBe(200);
    tx = await stored(trxid);
    expect(tx.refunded_amount).toBe(total);
  });

  it('an acquirer that does not answer in time: 503 acquirer_unavailable, nothing counted as refunded; the resolver then settles it exactly once', async () => {
    const { trxid } = await paidAtAcquirer();
    // The acquirer answers after the gateway gave up, and does refund: only asking again can tell.
    w.sim.stallNext.refund = 1500;
    const res = await refund({ trxid, amount: 2500 });
    expect(res.status).toBe(503);
    expect(res.body.error!.code).toBe('acquirer_unavailable');
    expect(res.headers['retry-after']).toBeDefined();
    let tx = await stored(trxid);
    expect(tx.refunded_amount).toBe(0);
    expect(tx.refund_held).toBe(2500);
    const [row] = await w.t.deps.db.selectFrom('refunds').selectAll().where('transaction_id', '=', trxid).execute();
    expect(row!.status).toBe('pending');

    // Once the stalled request has been served at the acquirer, the resolver asks with the same id.
    await expect.poll(() => w.sim.refunded(trxid, { inProgress: true }), { timeout: 10_000 }).toBe(2500);
    await dueNow();
    await resolveDueRefunds(w.t.deps);
    tx = await stored(trxid);
    expect(tx.refunded_amount).toBe(2500);
    expect(tx.refund_held).toBe(0);
    expect(w.sim.refunded(trxid)).toBe(2500);
    expect(await eventsOf(trxid, 'refund.succeeded')).toHaveLength(1);
  });

  it('a retry with the same Idempotency-Key answers the same refund and asks the acquirer nothing more', async () => {
    const { trxid } = await paidAtAcquirer();
    const key = { 'idempotency-key': `refund-${trxid}` };
    const first = await refund({ trxid, amount: 1500 }, key);
    expect(first.status).toBe(200);
    const asked = w.sim.counts.refund;
    const again = await refund({ trxid, amount: 1500 }, key);
    expect(again.status).toBe(200);
    expect(again.body.data.refund.id).toBe(first.body.data.refund.id);
    expect(w.sim.counts.refund).toBe(asked);
    expect(w.sim.refunded(trxid)).toBe(1500);
    expect((await stored(trxid)).refunded_amount).toBe(1500);
  });

  it('a resolver round goes on past a pending refund whose source was disabled meanwhile, which stays pending', async () => {
    // Two pending refunds: both "in progress" at first.
    const a = await paidAtAcquirer();
    const b = await paidAtAcquirer();
    w.sim.refundInProgressAsks = 1;
    const ra = await refund({ trxid: a.trxid, amount: 1000 });
    w.sim.refundInProgressAsks = 1;
    const rb = await refund({ trxid: b.trxid, amount: 1000 });
    expect([ra.body.data.refund.status, rb.body.data.refund.status]).toEqual(['pending', 'pending']);
    // The source is disabled while they wait: neither can be asked now, and the round must not stop.
    await setSourceEnabled(w.t.deps, { id: w.sourceId, enabled: false, actor: TEST_ACTOR });
    try {
      await dueNow();
      await expect(resolveDueRefunds(w.t.deps)).resolves.toBe(0);
      const rows = await w.t.deps.db
        .selectFrom('refunds')
        .select(['id', 'status'])
        .where('id', 'in', [ra.body.data.refund.id, rb.body.data.refund.id])
        .execute();
      expect(rows.map((r) => r.status)).toEqual(['pending', 'pending']);
    } finally {
      await setSourceEnabled(w.t.deps, { id: w.sourceId, enabled: true, actor: TEST_ACTOR });
    }
    // Enabled again (the claims the failed round left made due at once): both are settled.
    await dueNow();
    await resolveDueRefunds(w.t.deps);
    expect((await stored(a.trxid)).refunded_amount).toBe(1000);
    expect((await stored(b.trxid)).refunded_amount).toBe(1000);
  });
});
