import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollDelayMs, pollDueSnapQueries } from '../../../src/payment-sources/snap/poll.js';
import { startSnapPoller } from '../../../src/payment-sources/snap/poller.js';
import { postNotification, startSnapWorld, type SnapWorld } from '../../helpers/snap.js';

let w: SnapWorld;
beforeAll(async () => {
  w = await startSnapWorld({ env: { SNAP_POLL_MAX_DELAY_SECONDS: '60' } });
});
afterAll(async () => w.close());

async function created(): Promise<string> {
  const res = await w.cqris();
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.trxid as string;
}

const pollRow = (trxid: string) =>
  w.t.deps.db.selectFrom('snap_polls').selectAll().where('transaction_id', '=', trxid).executeTakeFirst();
/** Makes one transaction's poll due now without moving the clock for the others. */
const makeDue = (trxid: string) =>
  w.t.deps.db
    .updateTable('snap_polls')
    .set({ next_poll_at: w.t.clock.now() })
    .where('transaction_id', '=', trxid)
    .execute();

describe('SNAP query polling', () => {
  it('backs off 5 s, 10 s, 20 s ... up to the cap', () => {
    expect([1, 2, 3, 4, 5, 30].map((n) => pollDelayMs(n, 60))).toEqual([
      10_000, 20_000, 40_000, 60_000, 60_000, 60_000,
    ]);
  });

  it('catches a payment whose notification never arrives (background worker)', async () => {
    const trxid = await created();
    await w.sim.pay(trxid, { notify: false, payerName: 'Dewi', issuer: 'GOPAY' });
    w.t.clock.advance(5_000);
    const worker = startSnapPoller(w.t.deps, 50);
    try {
      const deadline = Date.now() + 10_000;
      while ((await w.cstatus(trxid)).status !== 'paid' && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
    } finally {
      await worker.stop();
    }
    const view = await w.cstatus(trxid);
    expect(view.status).toBe('paid');
    expect(view.payment).toMatchObject({
      source: w.sourceId,
      reference: w.sim.code(trxid)!.referenceNo,
      issuer: 'GOPAY',
      payer_name: 'Dewi',
    });
    expect(await pollRow(trxid)).toBeUndefined();
  });

  it('keeps asking with backoff while the code is unpaid, and one poller claims each poll', async () => {
    const trxid = await created();
    await makeDue(trxid);
    const queries = w.sim.counts.query;
    const [a, b] = await Promise.all([pollDueSnapQueries(w.t.deps), pollDueSnapQueries(w.t.deps)]);
    expect(w.sim.counts.query).toBe(queries + 1);
    expect(a.pending + b.pending).toBe(1);
    const row = (await pollRow(trxid))!;
    expect(row.attempts).toBe(1);
    expect(row.next_poll_at).toBe(w.t.clock.now() + 10_000);
    await makeDue(trxid);
    await pollDueSnapQueries(w.t.deps);
    expect((await pollRow(trxid))!.next_poll_at).toBe(w.t.clock.now() + 20_000);
    expect((await w.cstatus(trxid)).status).toBe('pending');
  });

  it('pays once when the notification and a query poll report the same payment at once', async () => {
    for (let round = 0; round < 6; round++) {
      const trxid = await created();
      await w.sim.pay(trxid, { notify: false });
      const notification = await w.sim.notify(trxid, { send: false });
      await makeDue(trxid);
      const [notified, polled] = await Promise.all([postNotification(notification), pollDueSnapQueries(w.t.deps)]);
      expect(notified.body.responseCode).toBe('2005200');
      expect(polled.failed).toBe(0);
      const payments = await w.t.deps.db
        .selectFrom('payments')
        .selectAll()
        .where('source', '=', w.sourceId)
        .where('source_payment_id', '=', w.sim.code(trxid)!.referenceNo)
        .execute();
      expect(payments).toHaveLength(1);
      expect(payments[0]!.status).toBe('matched');
      const tx = await w.cstatus(trxid);
      expect(tx.status).toBe('paid');
      expect(tx.payment.id).toBe(payments[0]!.id);
    }
  });

  it('stops polling a code the acquirer cancelled, and past the last poll time', async () => {
    const cancelled = await created();
    w.sim.code(cancelled)!.status = '05';
    await makeDue(cancelled);
    await pollDueSnapQueries(w.t.deps);
    expect(await pollRow(cancelled)).toBeUndefined();

    const old = await created();
    await w.t.deps.db
      .updateTable('snap_polls')
      .set({ next_poll_at: w.t.clock.now(), stop_after: w.t.clock.now() - 1 })
      .where('transaction_id', '=', old)
      .execute();
    const queries = w.sim.counts.query;
    await pollDueSnapQueries(w.t.deps);
    expect(await pollRow(old)).toBeUndefined();
    expect(w.sim.counts.query).toBe(queries);
  });

  it('marks a payment found after expiry paid_late', async () => {
    const trxid = await created();
    await w.sim.pay(trxid, { notify: false });
    w.t.clock.advance(16 * 60_000);
    await makeDue(trxid);
    await pollDueSnapQueries(w.t.deps);
    const view = await w.cstatus(trxid);
    expect(view.status).toBe('paid');
    expect(view.paid_late).toBe(true);
  });
});
